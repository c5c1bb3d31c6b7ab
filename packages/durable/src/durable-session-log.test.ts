import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AnySessionEvent,
  createHost,
  defineTool,
  type JsonValue,
  loadSessionLog,
  openJsonlSink,
  resumeSession,
  z,
} from '@deepseek-ai/dsh-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { approvalKey, approvalReplyOf } from './durable-approval.js';
import { sessionLogPath } from './durable-session-log.js';
import { DurableErrorCode } from './errors.js';
import { MemoryJournal, memoryDurable } from './memory-durable.js';
import { type OpenedSession, openSessionHost } from './session-setup.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsh-durable-log-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A promise and its resolve (Node 20 has no `Promise.withResolvers`). */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** A non-idempotent tool whose body, once `hang` is set, never finishes: the worker "dies" inside it. */
function actTool() {
  const state = { runs: 0, hang: false, started: signal() };
  const tool = defineTool({
    name: 'act',
    description: 'counts its runs',
    input: z.object({ ask: z.boolean().optional() }),
    execute: async () => {
      state.runs += 1;
      state.started.resolve();
      if (state.hang) await new Promise(() => {});
      return { runs: state.runs };
    },
  });
  return { tool, state };
}

/** One attempt of a durable run of session `s 1` over `journal`, logging to `dir`. */
function attempt(journal: MemoryJournal, tool: ReturnType<typeof actTool>['tool']): Promise<OpenedSession> {
  return openSessionHost('s 1', memoryDurable(journal), {
    hostId: 'test',
    logDir: dir,
    createHost({ hostOptions }) {
      const host = createHost({ ...hostOptions, defaultDecision: 'allow' });
      host.tools.register(tool);
      host.hooks.preExecute.tap('ask-marked', (state) => (state.args.ask === true ? { decision: 'ask' } : undefined));
      return host;
    },
  });
}

async function logged(): Promise<AnySessionEvent[]> {
  const loaded = await loadSessionLog(sessionLogPath(dir, 's 1'));
  expect(loaded.unknownOutcomes).toEqual([]);
  return [...loaded.events];
}

function count(events: readonly AnySessionEvent[], type: string, call: string): number {
  return events.filter((e) => e.type === type && e.call === call).length;
}

describe('the durable session log', () => {
  it('holds one tool/call and one tool/result per call after an attempt dies mid-body and mid-line', async () => {
    const journal = new MemoryJournal();
    const { tool, state } = actTool();
    const first = await attempt(journal, tool);
    await first.host.runStep({ calls: [{ id: 'c1', name: 'act', args: {} }] });
    state.hang = true;
    state.started = signal();
    void first.host.runStep({ calls: [{ id: 'c2', name: 'act', args: {} }] });
    await state.started.promise;
    await first.host.events.flush?.();
    // The dead worker's last write was cut short; its handle is never closed (the next attempt supersedes it).
    await appendFile(sessionLogPath(dir, 's 1'), '{"seq":99,"ty');

    state.hang = false;
    const second = await attempt(journal, tool);
    const replayed = await second.host.runStep({ calls: [{ id: 'c1', name: 'act', args: {} }] });
    const resumed = await second.host.runStep({ calls: [{ id: 'c2', name: 'act', args: {} }] });
    await second.close();

    expect(replayed.results[0]?.outcome).toMatchObject({ status: 'ok', output: { runs: 1 } });
    expect(resumed.results[0]?.outcome).toMatchObject({ status: 'error', error: { code: DurableErrorCode.TOOL_INTERRUPTED } });
    expect(state.runs).toBe(2);
    const events = await logged();
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    for (const call of ['c1', 'c2']) {
      expect(count(events, 'tool/call', call)).toBe(1);
      expect(count(events, 'tool/result', call)).toBe(1);
    }
    expect(events.filter((e) => e.type === 'session/resumed')).toHaveLength(1);
    expectNoRepeatedStepEvents(events);
    const c2 = events.filter((e) => e.call === 'c2');
    expect(new Set(c2.map((e) => e.token)).size).toBe(1);
  });

  it('writes nothing for a step replayed whole, and continues the log with the next one', async () => {
    const journal = new MemoryJournal();
    const { tool } = actTool();
    const first = await attempt(journal, tool);
    await first.host.runStep({ calls: [{ id: 'c1', name: 'act', args: {} }] });
    await first.close();
    const before = await readFile(sessionLogPath(dir, 's 1'), 'utf8');

    const second = await attempt(journal, tool);
    await second.host.runStep({ calls: [{ id: 'c1', name: 'act', args: {} }] });
    await second.host.events.flush?.();
    expect(await readFile(sessionLogPath(dir, 's 1'), 'utf8')).toBe(before);
    await second.host.runStep({ calls: [{ id: 'c2', name: 'act', args: {} }] });
    await second.close();
    const events = await logged();
    expect(events.filter((e) => e.call !== undefined).map((e) => `${e.type} ${e.call}`)).toEqual([
      'tool/call c1',
      'tool/result c1',
      'tool/call c2',
      'tool/result c2',
    ]);
    expectNoRepeatedStepEvents(events);
  });

  it('logs an approval asked before the worker died and answered after once', async () => {
    const journal = new MemoryJournal();
    const { tool, state } = actTool();
    const first = await attempt(journal, tool);
    void first.host.runStep({ calls: [{ id: 'c1', name: 'act', args: { ask: true } }] });
    while (count(await readLog(), 'approval/request', 'c1') === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await first.close();

    journal.post(approvalKey('c1'), approvalReplyOf('allow') as unknown as JsonValue);
    const second = await attempt(journal, tool);
    const step = await second.host.runStep({ calls: [{ id: 'c1', name: 'act', args: { ask: true } }] });
    await second.close();

    expect(step.results[0]?.outcome.status).toBe('ok');
    expect(state.runs).toBe(1);
    const events = await logged();
    expect(['tool/call', 'approval/request', 'approval/answer', 'tool/result'].map((type) => count(events, type, 'c1'))).toEqual([
      1, 1, 1, 1,
    ]);
  });

  it('is a log core resumes and `loadSessionLog` reads: one session, seq without a gap', async () => {
    const journal = new MemoryJournal();
    const { tool } = actTool();
    const first = await attempt(journal, tool);
    await first.host.runStep({ calls: [{ id: 'c1', name: 'act', args: {} }] });
    await first.close();
    const path = sessionLogPath(dir, 's 1');
    expect(path).toBe(join(dir, 's%201.jsonl'));
    // resumeSession checks the log as a journal (one session, seq from 1 with no gap) and finds nothing open.
    const sink = await openJsonlSink(path);
    const host = createHost({ session: 's 1', sink });
    host.tools.register(tool);
    const resumed = await resumeSession(host, path);
    await sink.close?.();
    expect(resumed.resumed).toEqual([]);
    expect(resumed.calls.map((c) => c.id)).toEqual(['c1']);
  });
});

/** Events without a call (a step's start and end, where core logs them) appear once, and an end names its own start. */
function expectNoRepeatedStepEvents(events: readonly AnySessionEvent[]): void {
  const texts = events.filter((e) => e.call === undefined).map((e) => `${e.type} ${JSON.stringify(e.data)}`);
  expect(new Set(texts).size).toBe(texts.length);
  const seqOf = new Map(events.map((e) => [e.seq, e]));
  for (const e of events) {
    const start = (e.data as { startSeq?: number }).startSeq;
    if (e.type === ('step/end' as string)) expect(seqOf.get(start ?? 0)?.type).toBe('step/start');
  }
}

async function readLog(): Promise<AnySessionEvent[]> {
  const text = await readFile(sessionLogPath(dir, 's 1'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.startsWith('{') && line.endsWith('}'))
    .map((line) => JSON.parse(line) as AnySessionEvent);
}
