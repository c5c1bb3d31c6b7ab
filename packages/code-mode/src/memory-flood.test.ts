import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnySessionEvent } from '@deepseek-ai/dsh-core';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf, wellFormed } from './fixtures/kit.js';
import { type CodeModeOptions, codeMode } from './index.js';
import type { RunCodeErrorData, RunCodeOutput } from './output.js';

const MiB = 1024 * 1024;
// The program of issue 27: reads fired without await until something gives.
const FLOOD = "for (let i = 0; i < 1e6; i++) tools.read({ file_path: 'a' });";
/**
 * Time budgets no flood can reach, so that what ends it never depends on the machine's speed: with the
 * defaults (10 s of CPU) a flood on a busy or slow machine could end PROGRAM_TIMEOUT before it filled
 * the memory (issue 38, item 19). The fill takes a few seconds of CPU; nothing but memory or maxCalls ends it.
 */
const UNREACHABLE_TIME = { cpuTimeoutMs: 600_000, timeoutMs: 3_600_000 } as const;
/** A bound for hangs only, far above a flood's few seconds on a CPU-hogged 2-core machine. */
const HANG_BOUND_MS = 900_000;

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'code-mode-flood-'));
  await writeFile(join(dir, 'a'), 'alpha\n');
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function floodHost(options: CodeModeOptions) {
  return createTestHost({
    plugins: [toolFs({ roots: [dir], cwd: dir, search: 'builtin' }), codeMode(options)],
    retainEvents: 100_000,
  });
}

interface Accounting {
  /** Calls the outcome says the program made (listed and omitted). */
  readonly made: number;
  /** Sub-calls that entered the pipeline (their own `tool/call`). */
  readonly dispatched: number;
  /** `code-mode/call-cancelled` events, plus the calls the one `code-mode/events-dropped` counts. */
  readonly cancelled: number;
  readonly droppedEvents: readonly AnySessionEvent[];
}

function accounting(events: readonly AnySessionEvent[], calls: RunCodeOutput | RunCodeErrorData, runId: string): Accounting {
  const dispatched = events.filter((e) => e.type === 'tool/call' && e.call?.startsWith(`${runId}:code:`)).length;
  const logged = events.filter((e) => e.type === 'code-mode/call-cancelled').length;
  const droppedEvents = events.filter((e) => e.type === 'code-mode/events-dropped');
  const dropped = droppedEvents.reduce((sum, e) => sum + (e.data as { dropped: number }).dropped, 0);
  return { made: calls.calls.length + (calls.callsOmitted ?? 0), dispatched, cancelled: logged + dropped, droppedEvents };
}

describe('run_code: a flood of unawaited calls (issue 27)', { timeout: HANG_BOUND_MS }, () => {
  it('ends a flood that fills the sandbox with PROGRAM_OUT_OF_MEMORY and accounts for every call it accepted', async () => {
    // maxCalls high enough that every call is accepted, so the accepted calls themselves fill the 32 MiB.
    const t = await floodHost({ ...UNREACHABLE_TIME, maxCalls: 1_000_000, memoryLimitBytes: 32 * MiB });
    const error = errorOf(await t.call('run_code', { code: FLOOD }, 'flood'));
    expect(error.code).toBe('PROGRAM_OUT_OF_MEMORY');
    const events = wellFormed(t);
    const count = accounting(events, error.data, 'flood');
    // The cap came long before the millionth call, and well after the hundredth.
    expect(count.made).toBeGreaterThan(1000);
    expect(count.made).toBeLessThan(1_000_000);
    // Every accepted call either entered the pipeline or was cancelled and counted.
    expect(count.dispatched + count.cancelled).toBe(count.made);
    expect(error.data.calls).toHaveLength(100);
    for (const call of error.data.calls) expect(call).toMatchObject({ name: 'read', status: 'cancelled', code: 'CALL_CANCELLED' });
    expect(error.data.calls.map((c) => c.id).slice(0, 3)).toEqual(['flood:code:0', 'flood:code:1', 'flood:code:2']);
    // The first cancellations are logged one by one, the rest in one summary, all stopped by the cap.
    expect(events.filter((e) => e.type === 'code-mode/call-cancelled')).toHaveLength(100);
    expect(count.droppedEvents).toHaveLength(1);
    const summary = count.droppedEvents[0]?.data as { dropped: number; reasons: Record<string, number> };
    expect(summary.reasons).toEqual({ 'program-ended': 0, 'run-stopped': summary.dropped, 'after-end': 0 });
    // The next run gets a fresh instance.
    const next = await t.call('run_code', { code: "return (await tools.read({ file_path: 'a' })).content;" });
    expect(next.status).toBe('ok');
  });

  it('accounts for the calls of the flood with the default maxCalls, accepted and refused alike', async () => {
    const t = await floodHost({ ...UNREACHABLE_TIME });
    const outcome = await t.call('run_code', { code: FLOOD }, 'issue');
    const data = (outcome.status === 'ok' ? outcome.output : outcome.status === 'error' ? outcome.error.data : undefined) as
      | RunCodeOutput
      | RunCodeErrorData
      | undefined;
    expect(data).toBeDefined();
    if (data === undefined) return;
    const events = wellFormed(t);
    const count = accounting(events, data, 'issue');
    // The first 10,000 calls (maxCalls) were accepted; the rest were refused inside the guest, and counted.
    expect(count.made).toBeGreaterThan(10_000);
    expect(count.dispatched + count.cancelled).toBe(10_000);
    expect(count.droppedEvents).toHaveLength(1);
    expect(events.filter((e) => e.type === 'code-mode/call-cancelled')).toHaveLength(100);
    expect(data.calls).toHaveLength(100);
  });
});
