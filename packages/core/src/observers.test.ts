import { describe, expect, it } from 'vitest';
import { echoTool } from './__fixtures__/tools.js';
import type { Outcome } from './index.js';
import { createTestHost } from './testing/index.js';

describe('tools/result observers (stage 12)', () => {
  it('see the frozen outcome that the tool/result event carries, all of them in parallel', async () => {
    const t = await createTestHost();
    t.host.tools.register(echoTool());
    const seen: Outcome[] = [];
    let running = 0;
    let overlapped = false;
    for (const name of ['a', 'b', 'c']) {
      t.host.hooks.result.tap(name, async (outcome) => {
        running += 1;
        await new Promise((r) => setTimeout(r, 5));
        overlapped ||= running > 1;
        running -= 1;
        seen.push(outcome);
      });
    }
    const outcome = await t.call('echo', { text: 'x' });
    const event = t.host.events.list().find((e) => e.type === 'tool/result');
    expect(seen).toHaveLength(3);
    for (const o of seen) expect(o).toBe(outcome);
    expect(event?.type === 'tool/result' && event.data.outcome).toBe(outcome);
    expect(Object.isFrozen(outcome)).toBe(true);
    expect(overlapped).toBe(true);
  });

  it('cannot change the outcome; one that throws or hangs is recorded and ignored', async () => {
    const t = await createTestHost({ tapTimeoutMs: 30 });
    t.host.tools.register(echoTool());
    t.host.hooks.result.tap('mutator', (outcome) => {
      (outcome as { status: string }).status = 'denied';
    });
    t.host.hooks.result.tap('rejecter', () => Promise.reject(new Error('exporter down')));
    t.host.hooks.result.tap('hanger', () => new Promise<void>(() => undefined));
    const outcome = await t.call('echo', { text: 'x' });
    expect(outcome).toMatchObject({ status: 'ok', output: { text: 'x' } });
    expect(
      t.host.diagnostics
        .list()
        .map((d) => `${d.code}:${d.source}`)
        .sort(),
    ).toEqual([
      'OBSERVER_FAILED:tap:tools/result:hanger',
      'OBSERVER_FAILED:tap:tools/result:mutator',
      'OBSERVER_FAILED:tap:tools/result:rejecter',
    ]);
  });
});
