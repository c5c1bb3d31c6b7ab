import type { CallRun } from './call-run.js';
import type { EventData } from './events.js';
import type { DispatchOutcome } from './outcome.js';
import type { Runtime } from './runtime.js';

/**
 * A body the call stopped waiting for settled: recorded as a diagnostic, and
 * logged as `tool/late-settlement` after the call's `tool/result` (at once
 * when that is logged, else as soon as it is). One per call.
 */
export function lateSettlement(rt: Runtime, run: CallRun, late: DispatchOutcome, elapsedMs: number, graceMs: number): void {
  const { identity } = run;
  rt.diagnostics.record(
    'LATE_SETTLEMENT',
    `tool:${identity.name}`,
    `settled ${late.status} after the ${graceMs} ms grace period; the result was discarded`,
    identity.id,
  );
  if (run.late !== undefined) return;
  const code = late.status === 'ok' ? undefined : late.status === 'error' ? late.error.code : late.code;
  const data: EventData<'tool/late-settlement'> = {
    name: identity.name,
    status: late.status,
    elapsedMs: Math.max(0, Math.round(elapsedMs)),
    graceMs,
  };
  run.late = code === undefined ? data : { ...data, code };
  if (run.committed) logLateSettlement(rt, run, run.late);
}

/** Logs the call's late settlement (after its `tool/result`), once. */
export function logLateSettlement(rt: Runtime, run: CallRun, data: EventData<'tool/late-settlement'>): void {
  run.late = null;
  rt.log.append('tool/late-settlement', data, run.identity);
}
