import { announce, checkGuards, parseSent, preExecute, validate } from './admit.js';
import { approve } from './approve.js';
import { type CallRun, newCallRun } from './call-run.js';
import type { AbortFollower } from './cancellation.js';
import { commit, finaliseAndObserve, postExecute } from './complete.js';
import { dispatch } from './dispatch.js';
import { DshError, ErrorCode, messageOf } from './errors.js';
import type { ContextPart } from './events.js';
import type { Decision } from './hooks.js';
import { andThen, isPromiseLike, type MaybePromise } from './internal/deadline.js';
import { Pool } from './internal/pool.js';
import { followSignal } from './internal/signal-followers.js';
import { type CallIdentity, errorOutcome, type Outcome, type OutcomeError } from './outcome.js';
import type { ParentCall, Runtime } from './runtime.js';
import { showPending } from './show-cards.js';
import type { AnyToolDefinition, SubCall } from './tool.js';

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

/** Runs a step: policy stages in the model's order, bodies per the scheduling rules, results in order. */
export async function runStep(rt: Runtime, step: Step, options?: StepOptions): Promise<StepResult> {
  const calls = (step as { calls?: unknown } | null | undefined)?.calls;
  if (!Array.isArray(calls)) {
    return { results: [], error: { code: ErrorCode.INVALID_STEP, message: 'a step must be an object with a "calls" array' } };
  }
  if (calls.length === 0) {
    return { results: [], error: { code: ErrorCode.EMPTY_STEP, message: 'the step has no calls' } };
  }
  const parent = options?.parent;
  const signal = eitherSignal(options?.signal, parent?.signal);
  const runs = calls.map((call: unknown, index) => startRun(rt, call, index, parent));
  markDuplicates(runs);
  const unlink = signal === undefined ? undefined : followStepSignal(runs, signal);

  const pool = new Pool(rt.limits.maxParallel);
  const outcomes: Outcome[] = new Array(runs.length);
  // Results commit in the model's order; while nothing is pending they commit at once.
  let committing: Promise<void> | undefined;
  const commitInOrder = (run: CallRun, index: number, completion: MaybePromise<Outcome>): void => {
    if (committing === undefined && !isPromiseLike(completion)) {
      outcomes[index] = completion;
      const written = safeCommit(rt, run, completion);
      if (isPromiseLike(written)) committing = written;
      return;
    }
    committing = (committing ?? Promise.resolve()).then(async () => {
      const outcome = await completion;
      outcomes[index] = outcome;
      await safeCommit(rt, run, outcome);
    });
  };
  for (let index = 0; index < runs.length; index++) {
    const run = runs[index] as CallRun;
    let completion: MaybePromise<Outcome>;
    try {
      const admitted = admit(rt, run, signal);
      if (isPromiseLike(admitted)) await admitted;
      const started = start(rt, run, signal, pool);
      completion = (isPromiseLike(started) ? await started : started).completion;
    } catch (error) {
      completion = complete(rt, run, internalError(messageOf(error)));
    }
    commitInOrder(run, index, completion);
  }
  if (committing !== undefined) await committing;
  unlink?.();

  let context: ContextMessage | undefined;
  if (runs.some((run) => run.context.length > 0)) {
    const parts = runs.flatMap((run) => run.context);
    context = Object.freeze({ text: parts.map((p) => p.text).join('\n\n'), parts: Object.freeze(parts) });
    rt.log.append('context/message', context);
  }
  if (rt.log.sink !== undefined) await rt.log.flush();
  const results = runs.map((run, index) =>
    Object.freeze({ id: run.identity.id, name: run.identity.name, outcome: outcomes[index] as Outcome }),
  );
  return context === undefined ? { results } : { results, context };
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

/** A call's completion, boxed so that awaiting the box does not await the completion. */
interface Started {
  readonly completion: MaybePromise<Outcome>;
}

/**
 * Dispatches an admitted call. Settles once the next call may be admitted:
 * at once for a parallel body (it runs in the pool), after the body for any
 * other (it runs alone).
 */
function start(rt: Runtime, run: CallRun, signal: AbortSignal | undefined, pool: Pool): MaybePromise<Started> {
  const tool = run.tool;
  if (run.outcome !== undefined || tool === undefined) return { completion: complete(rt, run, run.outcome ?? internalError('no tool')) };
  const room = tool.parallel === true ? pool.slot() : pool.drain();
  if (room !== undefined) return room.then(() => dispatchAdmitted(rt, run, tool, signal, pool));
  return dispatchAdmitted(rt, run, tool, signal, pool);
}

function dispatchAdmitted(
  rt: Runtime,
  run: CallRun,
  tool: AnyToolDefinition,
  signal: AbortSignal | undefined,
  pool: Pool,
): MaybePromise<Started> {
  if (signal?.aborted) return { completion: complete(rt, run, abortedBeforeDispatch()) };
  if (tool.parallel === true) {
    const body = pool.run(async () => dispatch(rt, run, tool));
    return { completion: body.then((outcome) => complete(rt, run, outcome)) };
  }
  const outcome = dispatch(rt, run, tool);
  if (isPromiseLike(outcome)) return outcome.then((o) => ({ completion: complete(rt, run, o) }));
  return { completion: complete(rt, run, outcome) };
}

/**
 * Stages 1 to 6 for one call; sets `run.outcome` when the call will not
 * dispatch. Each stage continues synchronously when the previous one
 * answered synchronously: no tick is spent on a call nothing waits for.
 */
function admit(rt: Runtime, run: CallRun, signal: AbortSignal | undefined): MaybePromise<void> {
  const recorded = announce(rt, run);
  if (isPromiseLike(recorded)) return recorded.then((ok) => (ok ? present(rt, run, signal) : undefined));
  return recorded ? present(rt, run, signal) : undefined;
}

function present(rt: Runtime, run: CallRun, signal: AbortSignal | undefined): MaybePromise<void> {
  if (signal?.aborted && run.outcome === undefined) run.outcome = abortedBeforeDispatch();
  if (run.outcome === undefined) parseSent(run);
  run.tool = rt.tools.get(run.identity.name);
  const shown = showPending(rt, run);
  if (isPromiseLike(shown)) return shown.then(() => decide(rt, run, signal));
  return decide(rt, run, signal);
}

function decide(rt: Runtime, run: CallRun, signal: AbortSignal | undefined): MaybePromise<void> {
  if (run.outcome !== undefined) return;
  validate(rt, run);
  if (run.outcome !== undefined) return;
  const decision = preExecute(rt, run);
  if (isPromiseLike(decision)) return decision.then((d) => approveAndGuard(rt, run, signal, d));
  return approveAndGuard(rt, run, signal, decision);
}

function approveAndGuard(rt: Runtime, run: CallRun, signal: AbortSignal | undefined, decision: Decision | undefined): MaybePromise<void> {
  if (run.outcome !== undefined) return;
  if (decision === 'ask') return approve(rt, run, signal).then((approved) => (approved ? guard(rt, run, signal) : undefined));
  return guard(rt, run, signal);
}

function guard(rt: Runtime, run: CallRun, signal: AbortSignal | undefined): MaybePromise<void> {
  if (signal?.aborted) {
    run.outcome = abortedBeforeDispatch();
    return;
  }
  const passed = checkGuards(rt, run);
  if (isPromiseLike(passed)) return passed.then(() => undefined);
}

/** Stages 10 to 12. Never throws: a failure of the pipeline itself becomes the call's error. */
function complete(rt: Runtime, run: CallRun, outcome: Outcome): MaybePromise<Outcome> {
  const failed = (error: unknown): MaybePromise<Outcome> => finaliseAndObserve(rt, run, internalError(messageOf(error)));
  try {
    const done = andThen(postExecute(rt, run, outcome), (after) => finaliseAndObserve(rt, run, after));
    return isPromiseLike(done) ? done.then(undefined, failed) : done;
  } catch (error) {
    return failed(error);
  }
}

function safeCommit(rt: Runtime, run: CallRun, outcome: Outcome): MaybePromise<void> {
  const failed = (error: unknown): void => rt.diagnostics.record('COMMIT_FAILED', 'step', messageOf(error), run.identity.id);
  try {
    const written = commit(rt, run, outcome);
    return isPromiseLike(written) ? written.then(undefined, failed) : written;
  } catch (error) {
    failed(error);
  }
}

function abortedBeforeDispatch(): Outcome {
  return errorOutcome('step', ErrorCode.ABORTED_BEFORE_DISPATCH, 'the step was cancelled before this call started');
}

function internalError(message: string): Outcome {
  return errorOutcome('step', ErrorCode.TOOL_FAILED, `the pipeline failed on this call: ${message}`);
}

/** Builds a call's record from whatever the caller passed; a malformed call gets `INVALID_CALL`. */
function startRun(rt: Runtime, call: unknown, index: number, parent?: ParentCall): CallRun {
  const c = (typeof call === 'object' && call !== null ? call : {}) as Record<string, unknown>;
  const validId = typeof c.id === 'string' && c.id.length > 0;
  const validName = typeof c.name === 'string' && c.name.length > 0;
  const id = validId ? (c.id as string) : `#${index}`;
  const name = validName ? (c.name as string) : String(c.name ?? '');
  const token = parent?.token ?? rt.nextToken();
  const agent = parent?.agent;
  // A subagent's identity is copied and frozen: the caller's object cannot change it later.
  const identity: CallIdentity = Object.freeze(
    agent === undefined ? { id, name, token } : { id, name, token, agent: Object.freeze({ id: agent.id, type: agent.type }) },
  );
  const run = newCallRun(identity, c.args, parent === undefined ? undefined : { id: parent.id, signal: parent.signal });
  if (!validId || !validName) {
    run.outcome = errorOutcome('validate', ErrorCode.INVALID_CALL, `call ${index} needs a non-empty string "id" and "name"`);
  } else if (c.args === undefined) {
    run.outcome = errorOutcome('validate', ErrorCode.INVALID_ARGS, 'the call has no arguments; send an object, even an empty one');
  }
  return run;
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

/**
 * Runs one call through the whole pipeline outside a step (what `run_code`
 * uses). A sub-call carries its parent's token and follows its signal; its
 * additional context is dropped, as there is no step message to carry it.
 */
export async function executeCall(rt: Runtime, call: SubCall, parent?: ParentCall): Promise<Outcome> {
  const run = startRun(rt, call, 0, parent);
  const signal = parent?.signal;
  const unfollow = signal === undefined ? undefined : followSignal(signal, run.cancellation);
  try {
    let outcome: Outcome;
    try {
      await admit(rt, run, signal);
      outcome = run.outcome ?? (run.tool === undefined ? internalError('no tool') : await dispatch(rt, run, run.tool));
    } catch (error) {
      outcome = internalError(messageOf(error));
    }
    const final = await complete(rt, run, outcome);
    await safeCommit(rt, run, final);
    if (run.context.length > 0) tellDroppedContext(rt, run, parent);
    return final;
  } finally {
    unfollow?.();
  }
}

function tellDroppedContext(rt: Runtime, run: CallRun, parent: ParentCall | undefined): void {
  try {
    parent?.onDroppedContext?.(Object.freeze([...run.context]));
  } catch (error) {
    rt.diagnostics.record('SUBSCRIBER_FAILED', 'parent:onDroppedContext', messageOf(error), run.identity.id);
  }
}
