import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { echoTool } from './__fixtures__/tools.js';
import { createHost, defineTool, z } from './index.js';
import { createTestHost, logProblems } from './testing/index.js';

/** A real collector, whatever flags the test worker was started with. */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

const heapAfterGc = (gc: () => void): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

/** A flat, distinct string of `bytes` characters: no shared rope behind it. */
const flatString = (bytes: number, seed: number): string => Buffer.alloc(bytes, 97 + (seed % 26)).toString('latin1');

describe('the session log keeps a bounded memory (issue 15 item 7)', () => {
  it('keeps at most 10,000 events by default and says what it dropped', async () => {
    const t = await createTestHost();
    t.host.tools.register(echoTool());
    expect(t.host.events.dropped()).toEqual({ events: 0, bytes: 0, throughSeq: 0 });
    const calls = Array.from({ length: 1000 }, (_, n) => ({ id: `c${n}`, name: 'echo', args: { text: `${n}` } }));
    for (let step = 0; step < 5; step++) {
      await t.host.runStep({ calls: calls.map((c) => ({ ...c, id: `${c.id}-${step}` })) });
    }
    await t.call('echo', { text: 'last' });
    const list = t.host.events.list();
    expect(list).toHaveLength(10_000);
    const dropped = t.host.events.dropped();
    // Six steps: 6,002 calls, each step between its step/start and step/end.
    expect(dropped.events).toBe(14);
    expect(dropped.bytes).toBeGreaterThan(0);
    expect(list[0]?.seq).toBe(dropped.throughSeq + 1);
    expect(list.at(-1)?.seq).toBe(10_014);
    expect(logProblems(list)).toEqual([]);
  });

  it('lets the oldest events go when their bytes pass retainEventBytes, keeping the newest', async () => {
    const t = await createTestHost({ retainEventBytes: 50_000 });
    t.host.tools.register(echoTool());
    for (let i = 0; i < 10; i++) await t.call('echo', { text: flatString(10_000, i) }, `big-${i}`);
    const list = t.host.events.list();
    // Each call logs its 10 kB text twice (arguments, output): about two calls fit, with their small step events.
    const large = list.filter((e) => e.type.startsWith('tool/'));
    expect(large.length).toBeGreaterThanOrEqual(4);
    expect(large.length).toBeLessThanOrEqual(5);
    expect(large.at(-1)).toMatchObject({ type: 'tool/result', call: 'big-9' });
    expect(list.at(-1)?.type).toBe('step/end');
    const dropped = t.host.events.dropped();
    expect(dropped.events + list.length).toBe(40);
    expect(list[0]?.seq).toBe(dropped.throughSeq + 1);
    expect(dropped.bytes).toBeGreaterThan(150_000);
  });

  it('counts arguments sent as JSON text by their length, and outputs by the walk that finalised them', async () => {
    const t = await createTestHost({ retainEventBytes: 50_000 });
    t.host.tools.register(echoTool());
    for (let i = 0; i < 10; i++) {
      await t.host.runStep({ calls: [{ id: `text-${i}`, name: 'echo', args: JSON.stringify({ text: flatString(10_000, i) }) }] });
    }
    const list = t.host.events.list();
    const large = list.filter((e) => e.type.startsWith('tool/'));
    expect(large.length).toBeGreaterThanOrEqual(4);
    expect(large.length).toBeLessThanOrEqual(5);
    expect(large.at(-1)).toMatchObject({ type: 'tool/result', call: 'text-9' });
    const dropped = t.host.events.dropped();
    expect(dropped.events + list.length).toBe(40);
    expect(dropped.bytes).toBeGreaterThan(150_000);
  });

  it('keeps a single event larger than the byte bound (the newest always stays)', async () => {
    const t = await createTestHost({ retainEventBytes: 1000 });
    t.host.tools.register(echoTool());
    // A single call (no step): its tool/result is the newest event.
    await t.host.tools.execute({ id: 'huge', name: 'echo', args: { text: flatString(5000, 1) } });
    expect(t.host.events.list().map((e) => e.type)).toEqual(['tool/result']);
    expect(t.host.events.dropped()).toMatchObject({ events: 1, throughSeq: 1 });
  });

  it('checks a list whose oldest events were dropped from where it starts', async () => {
    const t = await createTestHost({ retainEvents: 6 });
    t.host.tools.register(echoTool());
    await t.call('echo', { text: 'a' }, 'first');
    await t.call('echo', { text: 'b' }, 'second');
    const list = t.host.events.list();
    expect(list.map((e) => `${e.type}:${e.call ?? ''}`)).toEqual([
      'tool/result:first',
      'step/end:',
      'step/start:',
      'tool/call:second',
      'tool/result:second',
      'step/end:',
    ]);
    // The first step's step/end names a step/start that was dropped: not a problem.
    expect(logProblems(list)).toEqual([]);
    expect(logProblems(list.slice(3, 4))).toEqual(['call second has no tool/result']);
  });

  it('refuses bad bounds with INVALID_OPTIONS', () => {
    expect(() => createHost({ retainEventBytes: 0 })).toThrow(/retainEventBytes/);
    expect(() => createHost({ retainEvents: 1.5 })).toThrow(/retainEvents/);
  });

  // Slower tests: each proves a fixed heap bound by the heap's size after a full collection, never by time.
  it('keeps the heap under a fixed bound across a million no-op calls', { timeout: 120_000 }, async () => {
    const gc = collector();
    const host = createHost({ defaultDecision: 'allow' });
    host.tools.register(defineTool({ name: 'noop', description: 'Nothing.', input: z.object({}), execute: () => null }));
    // Steps of 100 calls: the per-step work is the same per call, and a million calls stay within a minute on a busy machine.
    const calls = Array.from({ length: 100 }, (_, n) => ({ id: `n${n}`, name: 'noop', args: {} }));
    const run = async (steps: number) => {
      for (let s = 0; s < steps; s++) await host.runStep({ calls });
    };
    await run(1_000); // warm up: the first 100,000 calls also fill the log to its bound
    const before = heapAfterGc(gc);
    await run(9_000);
    const after = heapAfterGc(gc);
    // Unbounded, the 1,800,000 extra events would hold hundreds of MB.
    expect(after - before).toBeLessThan(16 * 1024 * 1024);
    expect(host.events.list()).toHaveLength(10_000);
    // Two events per call and two per step of 100 calls.
    expect(host.events.dropped().throughSeq).toBe(2_020_000 - 10_000);
  });

  it('keeps the heap under a fixed bound across a thousand calls with 1 MB arguments', { timeout: 120_000 }, async () => {
    const gc = collector();
    const host = createHost({ defaultDecision: 'allow' });
    host.tools.register(
      defineTool({ name: 'take', description: 'Takes a text.', input: z.object({ text: z.string() }), execute: () => null }),
    );
    const before = heapAfterGc(gc);
    for (let i = 0; i < 1000; i++) await host.runStep({ calls: [{ id: `m${i}`, name: 'take', args: { text: flatString(1 << 20, i) } }] });
    const after = heapAfterGc(gc);
    // The default byte bound is 16 MiB; without a bound the log would hold 1 GB of arguments.
    expect(after - before).toBeLessThan(64 * 1024 * 1024);
    // Each call's one large event comes with three small ones (tool/result, step/start, step/end).
    expect(host.events.list().length).toBeLessThan(80);
    expect(host.events.dropped().events + host.events.list().length).toBe(4000);
  });
});
