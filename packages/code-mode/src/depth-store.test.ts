import { executionAsyncId } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { codeHost } from './fixtures/kit.js';

describe('run_code: the store that counts nesting depth', () => {
  // With promise hooks on (what a storage in use needs on Node 20 and 22), a then-callback runs
  // under its promise's own async id; with them off, under the id of the code that settled it.
  const promiseHooksOn = () =>
    new Promise<boolean>((resolve) => {
      const outer = executionAsyncId();
      void Promise.resolve().then(() => resolve(executionAsyncId() !== outer));
    });

  it('leaves the host without promise hooks once no run is in progress', async () => {
    expect(await promiseHooksOn()).toBe(false);
    const t = await codeHost({ maxDepth: 2 });
    const first = await t.call('run_code', { code: 'return (await tools.add({ a: 1, b: 2 })).sum;' }, 'first');
    expect(first).toMatchObject({ status: 'ok' });
    expect(await promiseHooksOn()).toBe(false);
    // Two runs at once: the store stays on while either is in progress, and both complete.
    const both = await Promise.all([
      t.call('run_code', { code: 'return (await tools.add({ a: 2, b: 2 })).sum;' }, 'a'),
      t.call('run_code', { code: 'return (await tools.add({ a: 3, b: 3 })).sum;' }, 'b'),
    ]);
    expect(both.map((o) => o.status)).toEqual(['ok', 'ok']);
    expect(await promiseHooksOn()).toBe(false);
  });
});
