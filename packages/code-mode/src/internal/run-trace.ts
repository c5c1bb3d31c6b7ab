/**
 * The stages of a run, timed only while something listens (the package's bench, which prints where a
 * warm start's time goes): with no listener a run pays one check per stage and the worker is not asked
 * for its own times. Times are `performance.timeOrigin + performance.now()`, in milliseconds, so the
 * host's and the worker's marks can be set against each other.
 */
export type RunStage =
  /** `run_code`'s execute was entered. */
  | 'execute'
  /** The run has its worker, with an instance ready. */
  | 'taken'
  /** The start was posted to the worker. */
  | 'posted'
  /** The worker took the start off its port. */
  | 'received'
  /** The program was compiled in the prepared context. */
  | 'compiled'
  /** The program ran to its first wait (or end), its promise jobs included. */
  | 'ran'
  /** The calls and the end were collected: the report is sent next. */
  | 'reported'
  /** The host took the report. */
  | 'report'
  /** The worker was given back to the pool and the outcome built. */
  | 'released';

/** Where marks go while a listener is set. */
export const runTrace: { listener: ((stage: RunStage, at: number) => void) | undefined } = { listener: undefined };

/** The current time on the clock marks use. */
export const traceNow = (): number => performance.timeOrigin + performance.now();

/** Records a stage of the current run, when something listens. */
export function markStage(stage: RunStage): void {
  runTrace.listener?.(stage, traceNow());
}
