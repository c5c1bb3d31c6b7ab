import { createHost, defineTool, z } from '@deepseek-ai/dsh-core';
import { describe, expect, it } from 'vitest';
import type { Durable } from './durable.js';
import { attachDurable, durableCreateHostOptions } from './durable-host.js';
import { DurableErrorCode } from './errors.js';
import { MemoryJournal, memoryDurable } from './memory-durable.js';

/** A tool whose body counts its runs and, when told to, never finishes (the process "dies" inside it). */
function counter(name: string, idempotent: boolean) {
  const state = { runs: 0, hang: false };
  const tool = defineTool({
    name,
    description: 'counts its runs',
    input: z.object({}),
    idempotent,
    execute: async (_args, ctx) => {
      state.runs += 1;
      if (state.hang) await new Promise(() => {});
      return { runs: state.runs, key: `${ctx.session}:${ctx.call.id}` };
    },
  });
  return { tool, state };
}

async function attempt(journal: MemoryJournal, tool: ReturnType<typeof counter>['tool'], options = {}) {
  const durable = memoryDurable(journal);
  const host = createHost({ session: 's1', defaultDecision: 'allow', ...durableCreateHostOptions(durable, options) });
  host.tools.register(tool);
  attachDurable(host, durable, options);
  return host;
}

/** A durable whose steps each take 20 ms before they run, as an engine's round trip does. */
function slowSteps(durable: Durable): Durable {
  const pause = () => new Promise((resolve) => setTimeout(resolve, 20));
  const step: Durable['step'] = (name, fn) =>
    durable.step(name, async () => {
      await pause();
      return fn();
    });
  return { ...durable, attempt: durable.attempt, step };
}

/** A host whose tools all run in parallel; the call to the tool named `late` waits 50 ms before its body's stage. */
function parallelHost(durable: Durable, tools: readonly ReturnType<typeof counter>['tool'][], options: { late?: string } = {}) {
  const host = createHost({ session: 's1', defaultDecision: 'allow', ...durableCreateHostOptions(durable) });
  for (const tool of tools) host.tools.register({ ...tool, parallel: true });
  attachDurable(host, durable);
  host.hooks.preExecute.tap('late', async (_state, info) => {
    if (info.tool.name === options.late) await new Promise((resolve) => setTimeout(resolve, 50));
    return undefined;
  });
  return host;
}

describe('durableExecuteTap over an in-process journal', () => {
  it('replays a finished body without running it again', async () => {
    const journal = new MemoryJournal();
    const { tool, state } = counter('act', false);
    const first = await (await attempt(journal, tool)).runStep({ calls: [{ id: 'c1', name: 'act', args: {} }] });
    const second = await (await attempt(journal, tool)).runStep({ calls: [{ id: 'c1', name: 'act', args: {} }] });
    expect(state.runs).toBe(1);
    expect(second.results[0]?.outcome).toEqual(first.results[0]?.outcome);
    expect(first.results[0]?.outcome).toMatchObject({ status: 'ok', output: { runs: 1, key: 's1:c1' } });
    // A non-idempotent call costs two journal entries: the started marker and the body.
    expect(journal.entries.map((e) => e.name)).toEqual(['started s1:c1', 'tool s1:c1']);
  });

  it('ends a non-idempotent body that an earlier attempt started TOOL_INTERRUPTED', async () => {
    const journal = new MemoryJournal();
    const { tool, state } = counter('act', false);
    state.hang = true;
    void (await attempt(journal, tool)).runStep({ calls: [{ id: 'c1', name: 'act', args: {} }] });
    while (state.runs === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    state.hang = false;
    const resumed = await (await attempt(journal, tool)).runStep({ calls: [{ id: 'c1', name: 'act', args: {} }] });
    expect(state.runs).toBe(1);
    expect(resumed.results).toHaveLength(1);
    expect(resumed.results[0]?.outcome).toMatchObject({
      status: 'error',
      stage: 'execute',
      error: { code: DurableErrorCode.TOOL_INTERRUPTED, data: { idempotencyKey: 's1:c1' } },
    });
  });

  it('runs an idempotent body again, with one journal entry per call', async () => {
    const journal = new MemoryJournal();
    const { tool, state } = counter('look', true);
    state.hang = true;
    void (await attempt(journal, tool)).runStep({ calls: [{ id: 'c1', name: 'look', args: {} }] });
    while (state.runs === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    state.hang = false;
    const resumed = await (await attempt(journal, tool)).runStep({ calls: [{ id: 'c1', name: 'look', args: {} }] });
    expect(resumed.results[0]?.outcome).toMatchObject({ status: 'ok', output: { runs: 2 } });
    expect(journal.entries.map((e) => e.name)).toEqual(['tool s1:c1']);
  });

  it('takes the idempotent tools from a list of names over the tool flag', async () => {
    const journal = new MemoryJournal();
    const { tool } = counter('act', false);
    await (await attempt(journal, tool, { idempotent: ['act'] })).runStep({ calls: [{ id: 'c1', name: 'act', args: {} }] });
    expect(journal.entries.map((e) => e.name)).toEqual(['tool s1:c1']);
  });

  it('replays parallel non-idempotent calls whose steps interleaved differently in the first attempt', async () => {
    const journal = new MemoryJournal();
    const a = counter('a', false);
    const b = counter('b', false);
    a.state.hang = true;
    b.state.hang = true;
    const calls = [
      { id: 'c1', name: 'a', args: {} },
      { id: 'c2', name: 'b', args: {} },
    ];
    // First attempt: each step takes a while, as a database round trip does, so both calls ask for
    // their started markers before either marker is written. The process "dies" in both bodies.
    const slow = slowSteps(memoryDurable(journal));
    void parallelHost(slow, [a.tool, b.tool]).runStep({ calls });
    while (a.state.runs === 0 || b.state.runs === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    a.state.hang = false;
    b.state.hang = false;
    // Second attempt: steps replay at once and the second call is late, so the first call's
    // steps are all asked for before the second call's.
    const resumed = parallelHost(memoryDurable(journal), [a.tool, b.tool], { late: 'b' });
    const { results } = await resumed.runStep({ calls });
    expect(results.map((r) => r.outcome)).toMatchObject([
      { status: 'error', error: { code: DurableErrorCode.TOOL_INTERRUPTED } },
      { status: 'error', error: { code: DurableErrorCode.TOOL_INTERRUPTED } },
    ]);
    expect([a.state.runs, b.state.runs]).toEqual([1, 1]);
    expect(journal.entries.map((e) => e.name)).toEqual(['started s1:c1', 'tool s1:c1', 'started s1:c2', 'tool s1:c2']);
  });

  it('fails with JOURNAL_MISMATCH when a replay asks for another step than the journal holds', async () => {
    const journal = new MemoryJournal();
    await memoryDurable(journal).step('a', async () => 1);
    await expect(memoryDurable(journal).step('b', async () => 2)).rejects.toMatchObject({ code: DurableErrorCode.JOURNAL_MISMATCH });
  });
});

describe('durable approvals over an in-process journal', () => {
  it('replays a deny on the next attempt even when an allow is posted later', async () => {
    const journal = new MemoryJournal();
    const { tool, state } = counter('act', false);
    const host = createHost({ session: 's1', defaultDecision: 'ask', ...durableCreateHostOptions(memoryDurable(journal)) });
    host.tools.register(tool);
    const first = host.runStep({ calls: [{ id: 'c1', name: 'act', args: {} }] });
    expect(journal.post('approval c1', { answer: 'rejected', message: 'no' })).toBe(true);
    expect(journal.post('approval c1', { answer: 'allowed-once' })).toBe(false);
    expect((await first).results[0]?.outcome).toMatchObject({ status: 'denied', stage: 'approval' });
    const again = createHost({ session: 's1', defaultDecision: 'ask', ...durableCreateHostOptions(memoryDurable(journal)) });
    again.tools.register(tool);
    const replayed = await again.runStep({ calls: [{ id: 'c1', name: 'act', args: {} }] });
    expect(replayed.results[0]?.outcome).toMatchObject({ status: 'denied', stage: 'approval' });
    expect(state.runs).toBe(0);
  });

  it('denies as unavailable when nobody answers within the durable timeout', async () => {
    const journal = new MemoryJournal();
    const { tool, state } = counter('act', false);
    const host = createHost({
      session: 's1',
      defaultDecision: 'ask',
      ...durableCreateHostOptions(memoryDurable(journal), { approvalTimeoutMs: 1 }),
    });
    host.tools.register(tool);
    const result = await host.runStep({ calls: [{ id: 'c1', name: 'act', args: {} }] });
    expect(result.results[0]?.outcome.status).toBe('denied');
    expect(journal.entries).toEqual([{ kind: 'wait', name: 'approval c1', value: { status: 'timeout' } }]);
    expect(state.runs).toBe(0);
  });

  it('denies a malformed posted answer', async () => {
    const journal = new MemoryJournal();
    const { tool, state } = counter('act', false);
    const host = createHost({ session: 's1', defaultDecision: 'ask', ...durableCreateHostOptions(memoryDurable(journal)) });
    host.tools.register(tool);
    journal.post('approval c1', { answer: 'yes please' });
    const result = await host.runStep({ calls: [{ id: 'c1', name: 'act', args: {} }] });
    expect(result.results[0]?.outcome.status).toBe('denied');
    expect(state.runs).toBe(0);
  });
});
