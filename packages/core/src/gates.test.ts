import { describe, expect, it } from 'vitest';
import { DshError, defineTool, type GateVerdict, z } from './index.js';
import { createTestHost } from './testing/index.js';

async function setup() {
  const t = await createTestHost({ tapTimeoutMs: 30 });
  const verdicts: GateVerdict[] = [];
  t.host.tools.register(
    defineTool({
      name: 'writer',
      description: 'Announces a write.',
      input: z.object({ path: z.string() }),
      execute: async (args, ctx) => {
        const verdict = await ctx.gate('fs/write-intent', { path: args.path, expectedSha256: null });
        verdicts.push(verdict);
        return verdict.allowed;
      },
    }),
  );
  return { t, verdicts };
}

describe('gates', () => {
  it('pass when no handler vetoes, and tell each handler the call', async () => {
    const { t, verdicts } = await setup();
    const seen: string[] = [];
    t.host.gates.on('fs/write-intent', 'spy', (data, ctx) => {
      seen.push(`${ctx.call.id}:${data.path}`);
    });
    await t.call('writer', { path: '/a' }, 'w1');
    expect(verdicts).toEqual([{ allowed: true }]);
    expect(seen).toEqual(['w1:/a']);
  });

  it('stop at the first veto, in registration order, naming the handler', async () => {
    const { t, verdicts } = await setup();
    let laterRan = false;
    t.host.gates.on('fs/write-intent', 'cas', async () => ({ veto: 'the file changed since it was read', code: 'FS_CHANGED_SINCE_READ' }));
    t.host.gates.on('fs/write-intent', 'later', () => {
      laterRan = true;
    });
    await t.call('writer', { path: '/a' });
    expect(verdicts).toEqual([{ allowed: false, by: 'cas', reason: 'the file changed since it was read', code: 'FS_CHANGED_SINCE_READ' }]);
    expect(laterRan).toBe(false);
  });

  it.each([
    [
      'throws',
      () => {
        throw new Error('handler bug');
      },
      'handler bug',
    ],
    ['never answers', () => new Promise<undefined>(() => undefined), 'did not answer'],
    ['answers nonsense', () => 'no' as never, 'unknown answer'],
  ])('veto when a handler %s (fail closed)', async (_label, handler, message) => {
    const { t, verdicts } = await setup();
    t.host.gates.on('fs/write-intent', { name: 'bad', timeoutMs: 20 }, handler as unknown as () => undefined);
    await t.call('writer', { path: '/a' });
    expect(verdicts[0]).toMatchObject({ allowed: false, by: 'bad', reason: expect.stringContaining(message) });
  });

  it('untap, and refuse a duplicate or malformed handler', async () => {
    const { t, verdicts } = await setup();
    const off = t.host.gates.on('fs/write-intent', 'veto', () => ({ veto: 'no' }));
    expect(() => t.host.gates.on('fs/write-intent', 'veto', () => undefined)).toThrow(DshError);
    expect(() => t.host.gates.on('fs/write-intent', '', () => undefined)).toThrow(/needs a name/);
    off();
    await t.call('writer', { path: '/a' });
    expect(verdicts).toEqual([{ allowed: true }]);
  });
});
