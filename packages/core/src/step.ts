import type { CallRun } from './call-run.js';
import { abortedBeforeDispatch, admit, complete, internalError, safeCommit, startRun } from './call-stages.js';
import type { AbortFollower } from './cancellation.js';
import { dispatch } from './dispatch.js';
import { DshError, ErrorCode, messageOf } from './errors.js';
import type { ContextPart } from './events.js';
import { isPromiseLike, type MaybePromise } from './internal/deadline.js';
import { Pool } from './internal/pool.js';
import { followSignal } from './internal/signal-followers.js';
import { errorOutcome, type Outcome, type OutcomeError } from './outcome.js';
import type { ParentCall, Runtime } from './runtime.js';
import { logStepEnd, logStepStart } from './step-events.js';
import type { AnyToolDefinition } from './tool.js';

/** One tool call as the model sent it. `args` is an object or the model's JSON text. */
export interface StepCall {
  readonly id: string;
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>> | string;
}

/** The tool calls of one assistant message. */
export interface Step {
  readonly calls: readonly StepCall[];
}

/** How a step runs. Aborting `signal` cancels it: every call still gets one result. */
export interface StepOptions {
  readonly signal?: AbortSignal;
  /**
   * Runs every call of the step on behalf of this call (a subagent's step):
   * each carries its token, follows its signal (besides `signal`) and is
   * logged with `parent` in its `tool/call` event.
   */
  readonly parent?: ParentCall;
}

/** One call's single answer. */
export interface CallResult {
  readonly id: string;
  readonly name: string;
  readonly outcome: Outcome;
}

/** The step's additional context, in call order, for the message after the results. */
export interface ContextMessage {
  readonly text: string;
  readonly parts: readonly ContextPart[];
}

/** What `runStep` resolves with. It never rejects. */
export interface StepResult {
  /** One per call, in the model's order. */
  readonly results: readonly CallResult[];
  /** Present only when some call added context. */
  readonly context?: ContextMessage;
  /** Present when the step itself was malformed (no calls, not a step). */
  readonly error?: OutcomeError;
}

/**
 * Runs a step: policy stages in the model's order, bodies per the scheduling
 * rules, results in order. Never rejects: a step that could not run at all
 * resolves with an `error`. While every stage answers synchronously the whole
 * step runs in this call, and only the returned promise is allocated for it.
 * A step with calls is logged between a `step/start` and a `step/end`;
 * `rerun` marks the step a resume runs to call cut calls again.
 */
export function runStep(rt: Runtime, step: Step, options?: StepOptions, rerun = false): Promise<StepResult> {
  let started: StepRun | undefined;
  try {
    const calls = (step as { calls?: unknown } | null | undefined)?.calls;
    if (!Array.isArray(calls)) return Promise.resolve(stepError(ErrorCode.INVALID_STEP, 'a step must be an object with a "calls" array'));
    if (calls.length === 0) return Promise.resolve(stepError(ErrorCode.EMPTY_STEP, 'the step has no calls'));
    const parent = options?.parent;
    const signal = eitherSignal(options?.signal, parent?.signal);
    const runs: CallRun[] = new Array(calls.length);
    for (let index = 0; index < calls.length; index++) runs[index] = startRun(rt, calls[index], index, parent);
    markDuplicates(runs);
    started = new StepRun(rt, runs, signal, parent?.id, logStepStart(rt, runs, parent?.id, rerun));
    const result = started.run();
    return isPromiseLike(result) ? result : Promise.resolve(result);
  } catch (error) {
    return Promise.resolve(started === undefined ? couldNotRun(error) : started.stopped(undefined, error));
  }
}

function stepError(code: string, message: string): StepResult {
  return { results: [], error: { code, message } };
}

function couldNotRun(error: unknown): StepResult {
  return stepError(ErrorCode.INVALID_STEP, `the step could not run: ${messageOf(error)}`);
}

/**
 * One step in progress: admits its calls one after another, starts their
 * bodies, and commits their results in the model's order. A method waits
 * (returns a promise) only when a stage did; one object per step, no closure per call.
 */
class StepRun {
  readonly #rt: Runtime;
  readonly #runs: readonly CallRun[];
  readonly #signal: AbortSignal | undefined;
  readonly #outcomes: Outcome[];
  #next = 0;
  /** How many calls have their outcome queued for commit: a failure after that point must not queue another. */
  #queued = 0;
  /** The chain of commits waiting for an earlier call's outcome; undefined while nothing waits. */
  #committing: Promise<void> | undefined;
  #pool: Pool | undefined;
  /** The subagent call the step runs under, for its `step/end`. */
  readonly #parent: string | undefined;
  /** The `seq` of the step's `step/start`. */
  readonly #startSeq: number;
  /** Set once `step/end` is logged: a step ends once, however it fails. */
  #ended = false;

  constructor(rt: Runtime, runs: readonly CallRun[], signal: AbortSignal | undefined, parent: string | undefined, startSeq: number) {
    this.#rt = rt;
    this.#runs = runs;
    this.#signal = signal;
    this.#outcomes = new Array(runs.length);
    this.#parent = parent;
    this.#startSeq = startSeq;
  }

  /** The step itself failed: it stops following its signal, logs its `step/end` and resolves with the error. */
  stopped(unlink: (() => void) | undefined, error: unknown): StepResult {
    unlink?.();
    const result = couldNotRun(error);
    if (!this.#ended) {
      this.#ended = true;
      logStepEnd(this.#rt, this.#startSeq, 'failed', this.#outcomes, this.#parent, result.error);
    }
    return result;
  }

  /** Runs the step; a promise only when some stage waited. Never rejects. */
  run(): MaybePromise<StepResult> {
    const signal = this.#signal;
    const unlink = signal === undefined ? undefined : followStepSignal(this.#runs, signal);
    const admitted = this.#advance();
    if (isPromiseLike(admitted))
      return admitted.then(
        () => this.#finish(unlink),
        (error: unknown) => this.stopped(unlink, error),
      );
    return this.#finish(unlink);
  }

  /** Admits and starts calls from `#next` on; settles once every call is queued for commit. */
  #advance(): MaybePromise<void> {
    while (this.#next < this.#runs.length) {
      const index = this.#next++;
      const waiting = this.#admitAndStart(index);
      if (waiting === undefined) continue;
      // After the last call there is nothing more to admit: no further turn is needed.
      return this.#next < this.#runs.length ? waiting.then(() => this.#advance()) : waiting;
    }
  }

  /**
   * Stages 1 to 8 of one call. Every promise made here handles its own
   * rejection (a stage that threw), so the step waits on it without a further turn.
   */
  #admitAndStart(index: number): Promise<void> | undefined {
    const run = this.#runs[index] as CallRun;
    try {
      const admitted = admit(this.#rt, run, this.#signal);
      if (!isPromiseLike(admitted)) return this.#start(run, index);
      return admitted.then(() => this.#start(run, index)).then(undefined, (error: unknown) => this.#failed(run, index, error));
    } catch (error) {
      this.#failed(run, index, error);
      return undefined;
    }
  }

  /**
   * Dispatches an admitted call. Settles once the next call may be admitted:
   * at once for a parallel body (it runs in the pool), after the body for any
   * other (it runs alone).
   */
  #start(run: CallRun, index: number): Promise<void> | undefined {
    const tool = run.tool;
    if (run.outcome !== undefined || tool === undefined) {
      this.#queue(run, index, complete(this.#rt, run, run.outcome ?? internalError('no tool')));
      return undefined;
    }
    // The pool is made by the first parallel body: while there is none, nothing runs beside a call.
    if (tool.parallel === true) this.#pool ??= new Pool(this.#rt.limits.maxParallel);
    const room = tool.parallel === true ? this.#pool?.slot() : this.#pool?.drain();
    if (room === undefined) return this.#dispatch(run, index, tool);
    return room.then(() => this.#dispatch(run, index, tool)).then(undefined, (error: unknown) => this.#failed(run, index, error));
  }

  #dispatch(run: CallRun, index: number, tool: AnyToolDefinition): Promise<void> | undefined {
    const rt = this.#rt;
    if (this.#signal?.aborted) {
      this.#queue(run, index, complete(rt, run, abortedBeforeDispatch()));
      return undefined;
    }
    if (tool.parallel === true) {
      const body = (this.#pool as Pool).run(async () => dispatch(rt, run, tool));
      this.#queue(
        run,
        index,
        body.then(
          (outcome) => complete(rt, run, outcome),
          (error: unknown) => complete(rt, run, internalError(messageOf(error))),
        ),
      );
      return undefined;
    }
    const outcome = dispatch(rt, run, tool);
    if (!isPromiseLike(outcome)) {
      this.#queue(run, index, complete(rt, run, outcome));
      return undefined;
    }
    return outcome.then(
      (settled) => this.#queue(run, index, complete(rt, run, settled)),
      (error: unknown) => this.#failed(run, index, error),
    );
  }

  /** A stage threw: the call's result is the pipeline's error, unless its outcome was already queued. */
  #failed(run: CallRun, index: number, error: unknown): void {
    if (this.#queued > index) {
      this.#rt.diagnostics.record('COMMIT_FAILED', 'step', messageOf(error), run.identity.id);
      return;
    }
    this.#queue(run, index, complete(this.#rt, run, internalError(messageOf(error))));
  }

  /** Results commit in the model's order; while nothing is pending they commit at once. */
  #queue(run: CallRun, index: number, completion: MaybePromise<Outcome>): void {
    this.#queued = index + 1;
    if (this.#committing === undefined && !isPromiseLike(completion)) {
      this.#outcomes[index] = completion;
      const written = safeCommit(this.#rt, run, completion);
      if (isPromiseLike(written)) this.#committing = written;
      return;
    }
    this.#committing = (this.#committing ?? Promise.resolve()).then(async () => {
      const outcome = await completion;
      this.#outcomes[index] = outcome;
      await safeCommit(this.#rt, run, outcome);
    });
  }

  /** Once every result is committed: the context message, the sink's flush, the results. Never throws. */
  #finish(unlink: (() => void) | undefined): MaybePromise<StepResult> {
    const committing = this.#committing;
    if (committing !== undefined) {
      this.#committing = undefined;
      return committing.then(
        () => this.#finish(unlink),
        (error: unknown) => this.stopped(unlink, error),
      );
    }
    try {
      unlink?.();
      const result = this.#result();
      this.#ended = true;
      logStepEnd(this.#rt, this.#startSeq, this.#signal?.aborted ? 'aborted' : 'completed', this.#outcomes, this.#parent);
      if (this.#rt.log.sink === undefined) return result;
      return this.#rt.log.flush().then(() => result, couldNotRun);
    } catch (error) {
      return this.stopped(unlink, error);
    }
  }

  #result(): StepResult {
    const runs = this.#runs;
    let context: ContextMessage | undefined;
    let hasContext = false;
    for (const run of runs) hasContext ||= run.context.length > 0;
    if (hasContext) {
      const parts = runs.flatMap((run) => run.context);
      context = Object.freeze({ text: parts.map((p) => p.text).join('\n\n'), parts: Object.freeze(parts) });
      this.#rt.log.append('context/message', context);
    }
    const results: CallResult[] = new Array(runs.length);
    for (let index = 0; index < runs.length; index++) {
      const { identity } = runs[index] as CallRun;
      results[index] = Object.freeze({ id: identity.id, name: identity.name, outcome: this.#outcomes[index] as Outcome });
    }
    return context === undefined ? { results } : { results, context };
  }
}

/** One signal that aborts when either does. */
function eitherSignal(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  if (a === undefined || b === undefined || a === b) return a ?? b;
  return AbortSignal.any([a, b]);
}

/** Makes every call of the step follow its signal; returns the way to stop following. */
function followStepSignal(runs: readonly CallRun[], signal: AbortSignal): () => void {
  for (const run of runs) run.abortable = true;
  const follower: AbortFollower = {
    abort: (reason) => {
      for (const run of runs) run.cancellation.abort(reason ?? new DshError(ErrorCode.ABORTED, 'the step was cancelled'));
    },
  };
  return followSignal(signal, follower);
}

/** Every call whose id another call of the step shares is refused: the model could not tell their results apart. */
function markDuplicates(runs: readonly CallRun[]): void {
  if (runs.length < 2) return;
  const counts = new Map<string, number>();
  for (const run of runs) counts.set(run.identity.id, (counts.get(run.identity.id) ?? 0) + 1);
  for (const run of runs) {
    if ((counts.get(run.identity.id) ?? 0) > 1 && run.outcome === undefined) {
      run.outcome = errorOutcome('validate', ErrorCode.DUPLICATE_CALL_ID, `another call in this step has the id "${run.identity.id}"`);
    }
  }
}
