import type { CallRun } from './call-run.js';
import { ErrorCode, messageOf } from './errors.js';
import type { EventData } from './events.js';
import { finalise } from './finalise.js';
import type { PostExecuteState, PostExecuteTap, PostExecuteVerdict } from './hooks.js';
import { approxSize } from './internal/approx-size.js';
import { isPromiseLike, type MaybePromise, withDeadline } from './internal/deadline.js';
import { runSeries, type SeriesSteps } from './internal/series.js';
import type { JsonValue } from './json.js';
import { logLateSettlement } from './late-settlement.js';
import { errorOutcome, type Outcome } from './outcome.js';
import type { Runtime } from './runtime.js';
import { showCompleted } from './show-cards.js';
import type { Tap } from './taps.js';

/** True when the body ran and produced this outcome: only such outcomes may be blocked or replaced. */
function fromBody(outcome: Outcome): boolean {
  return (outcome.status === 'ok' || outcome.status === 'error') && (outcome.stage === 'execute' || outcome.stage === 'post-execute');
}

/**
 * Stage 10: the `tools/post-execute` waterfall. A block is final; a denial
 * stays a denial; a tap that throws or passes its deadline makes the body's
 * outcome an error. Outcomes decided before the body (denials, invalid
 * arguments) stay as they are; a failing tap on them is recorded.
 */
export function postExecute(rt: Runtime, run: CallRun, outcome: Outcome): MaybePromise<Outcome> {
  const taps = rt.hooks.postExecute.taps;
  if (taps.length === 0) return outcome;
  const series = new PostExecuteSeries(rt, run, outcome);
  const ran = runSeries(taps, series);
  return isPromiseLike(ran) ? ran.then(() => series.current) : series.current;
}

/** The waterfall's outcome and what it does with each verdict: one object per call, not a closure per step. */
class PostExecuteSeries implements SeriesSteps<Tap<PostExecuteTap>, PostExecuteVerdict | undefined | void> {
  current: Outcome;
  // One state object per outcome, not per tap: taps see the same object until a verdict changes it.
  #state: PostState;
  readonly #rt: Runtime;
  readonly #run: CallRun;

  constructor(rt: Runtime, run: CallRun, outcome: Outcome) {
    this.#rt = rt;
    this.#run = run;
    this.current = outcome;
    this.#state = new PostState(rt.session, run, outcome);
  }

  call(tap: Tap<PostExecuteTap>): ReturnType<PostExecuteTap> {
    if (this.#state.outcome !== this.current) this.#state = new PostState(this.#rt.session, this.#run, this.current);
    return tap.fn(this.#state);
  }

  timeoutOf(tap: Tap<PostExecuteTap>): number {
    return tap.timeoutMs ?? this.#rt.limits.tapTimeoutMs;
  }

  fail(tap: Tap<PostExecuteTap>, error: unknown): true {
    this.current = tapFailed(this.#rt, this.#run, this.current, tap.name, messageOf(error));
    return true;
  }

  answer(tap: Tap<PostExecuteTap>, verdict: PostExecuteVerdict | undefined | void): true {
    if (verdict === undefined || verdict === null) return true;
    if (typeof verdict !== 'object') {
      this.current = tapFailed(this.#rt, this.#run, this.current, tap.name, 'returned something other than a verdict object');
      return true;
    }
    if (typeof verdict.addContext === 'string' && verdict.addContext !== '') {
      this.#run.context.push({ call: this.#run.identity.id, by: tap.name, text: verdict.addContext });
    }
    if (!fromBody(this.current)) return true;
    if (typeof verdict.block === 'string') {
      this.current = {
        status: 'blocked',
        stage: 'post-execute',
        by: tap.name,
        code: ErrorCode.POST_EXECUTE_BLOCKED,
        reason: verdict.block,
      };
    } else if (Object.hasOwn(verdict, 'replaceOutput')) {
      this.current = { status: 'ok', stage: 'post-execute', by: tap.name, output: verdict.replaceOutput as JsonValue };
    }
    return true;
  }
}

/** A post-execute tap's state; a class so the signal is made only if a tap reads it. */
class PostState implements PostExecuteState {
  readonly call: CallRun['identity'];
  readonly tool: CallRun['tool'];
  readonly args: CallRun['args'];
  readonly #run: CallRun;

  constructor(
    readonly session: string,
    run: CallRun,
    readonly outcome: Outcome,
  ) {
    this.call = run.identity;
    this.tool = run.tool;
    this.args = run.args;
    this.#run = run;
  }

  get signal(): AbortSignal {
    return this.#run.cancellation.signal;
  }
}

function tapFailed(rt: Runtime, run: CallRun, current: Outcome, name: string, message: string): Outcome {
  if (!fromBody(current)) {
    rt.diagnostics.record(ErrorCode.POST_EXECUTE_FAILED, `tap:tools/post-execute:${name}`, message, run.identity.id);
    return current;
  }
  return errorOutcome('post-execute', ErrorCode.POST_EXECUTE_FAILED, `post-execute tap "${name}" failed: ${message}`, { by: name });
}

/** Stage 11, then 12: finalise, and let every observer see the frozen outcome. */
export function finaliseAndObserve(rt: Runtime, run: CallRun, outcome: Outcome): MaybePromise<Outcome> {
  const finalised = finalise(outcome);
  if (finalised.dropped !== undefined) {
    rt.diagnostics.record('ERROR_DATA_DROPPED', `tool:${run.identity.name}`, finalised.dropped, run.identity.id);
  }
  const frozen = finalised.outcome;
  // The walk that checked the outcome measured it: the log's byte bound needs no second walk.
  run.final = frozen;
  run.finalBytes = finalised.bytes;
  const observers = rt.hooks.result.taps;
  if (observers.length === 0) return frozen;
  const info = Object.freeze({ call: run.identity, tool: run.tool, session: rt.session, args: run.args });
  let waits: Promise<void>[] | undefined;
  const failed = (name: string, error: unknown): void =>
    rt.diagnostics.record('OBSERVER_FAILED', `tap:tools/result:${name}`, messageOf(error), run.identity.id);
  for (const observer of observers) {
    let returned: void | Promise<void>;
    try {
      returned = observer.fn(frozen, info);
    } catch (error) {
      failed(observer.name, error);
      continue;
    }
    if (!isPromiseLike(returned)) continue;
    const timeout = observer.timeoutMs ?? rt.limits.tapTimeoutMs;
    waits ??= [];
    waits.push(
      withDeadline(returned, timeout).then(
        (settled) => {
          if (settled.timedOut) failed(observer.name, new Error(`did not settle within ${timeout} ms`));
        },
        (error: unknown) => failed(observer.name, error),
      ),
    );
  }
  return waits === undefined ? frozen : Promise.all(waits).then(() => frozen);
}

/** Stages 13 and 14: the one `tool/result` event, then the completed card. */
export function commit(rt: Runtime, run: CallRun, outcome: Outcome): void | Promise<void> {
  const { identity } = run;
  const measured = run.final === outcome;
  let data: EventData<'tool/result'>;
  let bytes = measured ? 32 + identity.name.length + run.finalBytes : undefined;
  if (run.originalArgs === undefined) {
    data = run.pathsResolved ? { name: identity.name, outcome, args: run.args as JsonValue } : { name: identity.name, outcome };
    if (run.pathsResolved && bytes !== undefined) bytes += approxSize(run.args);
  } else {
    data = { name: identity.name, outcome, args: run.args as JsonValue, originalArgs: run.originalArgs as JsonValue };
    if (bytes !== undefined) bytes += approxSize(run.args) + approxSize(run.originalArgs);
  }
  rt.log.append('tool/result', data, identity, bytes);
  run.committed = true;
  if (run.late) logLateSettlement(rt, run, run.late);
  return showCompleted(rt, run, outcome);
}
