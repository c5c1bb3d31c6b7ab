import type { CallRun } from './call-run.js';
import type { EventData } from './events.js';
import type { Outcome, OutcomeError } from './outcome.js';
import type { Runtime } from './runtime.js';

/*
 * The two events that bracket a step in the session log, so a reader groups
 * calls by the step that ran them instead of guessing from overlaps. Two
 * events per step, none per call: their data is measured here, not walked.
 */

/** How a step ended, as its `step/end` says. */
export type StepEnd = EventData<'step/end'>['end'];

/** Logs `step/start` for the step's calls; returns its `seq`, which the step's `step/end` names. */
export function logStepStart(rt: Runtime, runs: readonly CallRun[], parent: string | undefined, rerun: boolean): number {
  const calls: string[] = new Array(runs.length);
  let bytes = 12;
  for (let index = 0; index < runs.length; index++) {
    const id = (runs[index] as CallRun).identity.id;
    calls[index] = id;
    bytes += id.length + 3;
  }
  let data: EventData<'step/start'> = { calls };
  if (parent !== undefined) {
    data = { ...data, parent };
    bytes += 12 + parent.length;
  }
  if (rerun) data = { ...data, rerun: true };
  rt.log.append('step/start', Object.freeze(data), undefined, bytes);
  return rt.log.lastSeq;
}

/** Logs the `step/end` of the step that `step/start` at `startSeq` began; `outcomes` in its calls' order. */
export function logStepEnd(
  rt: Runtime,
  startSeq: number,
  end: StepEnd,
  outcomes: readonly (Outcome | undefined)[],
  parent: string | undefined,
  error?: OutcomeError,
): void {
  const statuses: (Outcome['status'] | null)[] = new Array(outcomes.length);
  for (let index = 0; index < outcomes.length; index++) statuses[index] = outcomes[index]?.status ?? null;
  let data: EventData<'step/end'> = { startSeq, end, statuses };
  let bytes = 48 + outcomes.length * 9;
  if (parent !== undefined) {
    data = { ...data, parent };
    bytes += 12 + parent.length;
  }
  if (error !== undefined) {
    data = { ...data, error: { code: error.code, message: error.message } };
    bytes += 30 + error.code.length + error.message.length;
  }
  rt.log.append('step/end', Object.freeze(data), undefined, bytes);
}
