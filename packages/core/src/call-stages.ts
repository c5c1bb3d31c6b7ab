import { announce, checkGuards, parseSent, preExecute, validate } from './admit.js';
import { approve } from './approve.js';
import { type CallRun, newCallRun } from './call-run.js';
import { commit, finaliseAndObserve, postExecute } from './complete.js';
import { ErrorCode, messageOf } from './errors.js';
import type { Decision } from './hooks.js';
import { isPromiseLike, type MaybePromise } from './internal/deadline.js';
import { type CallIdentity, errorOutcome, type Outcome } from './outcome.js';
import { resolveCallPaths } from './resolve-paths.js';
import type { ParentCall, Runtime } from './runtime.js';
import { showPending } from './show-cards.js';

/*
 * The stages of one call that a step and a single call (`host.tools.execute`)
 * share. Each continues synchronously while the previous one answered
 * synchronously: no tick, and no promise, is spent on a call nothing waits for.
 */

/** Builds a call's record from whatever the caller passed; a malformed call gets `INVALID_CALL`. */
export function startRun(rt: Runtime, call: unknown, index: number, parent?: ParentCall): CallRun {
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

/** Stages 1 to 6 for one call; sets `run.outcome` when the call will not dispatch. */
export function admit(rt: Runtime, run: CallRun, signal: AbortSignal | undefined): MaybePromise<void> {
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
  // Paths are resolved once, here, so every policy stage and the body see the same absolute path.
  if (run.tool?.resolvePaths !== undefined) {
    resolveCallPaths(rt, run, run.tool);
    if (run.outcome !== undefined) return;
  }
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
export function complete(rt: Runtime, run: CallRun, outcome: Outcome): MaybePromise<Outcome> {
  let after: MaybePromise<Outcome>;
  try {
    after = postExecute(rt, run, outcome);
  } catch (error) {
    return completeFailed(rt, run, error);
  }
  if (!isPromiseLike(after)) return finaliseSafely(rt, run, after);
  return after.then(
    (value) => finaliseSafely(rt, run, value),
    (error: unknown) => completeFailed(rt, run, error),
  );
}

function finaliseSafely(rt: Runtime, run: CallRun, outcome: Outcome): MaybePromise<Outcome> {
  try {
    return finaliseAndObserve(rt, run, outcome);
  } catch (error) {
    return completeFailed(rt, run, error);
  }
}

function completeFailed(rt: Runtime, run: CallRun, error: unknown): MaybePromise<Outcome> {
  return finaliseAndObserve(rt, run, internalError(messageOf(error)));
}

/** Stages 13 and 14; a failure is recorded, never thrown. */
export function safeCommit(rt: Runtime, run: CallRun, outcome: Outcome): MaybePromise<void> {
  try {
    const written = commit(rt, run, outcome);
    return isPromiseLike(written) ? written.then(undefined, (error: unknown) => commitFailed(rt, run, error)) : written;
  } catch (error) {
    commitFailed(rt, run, error);
  }
}

function commitFailed(rt: Runtime, run: CallRun, error: unknown): void {
  rt.diagnostics.record('COMMIT_FAILED', 'step', messageOf(error), run.identity.id);
}

/** The outcome of a call the step's signal stopped before it started. */
export function abortedBeforeDispatch(): Outcome {
  return errorOutcome('step', ErrorCode.ABORTED_BEFORE_DISPATCH, 'the step was cancelled before this call started');
}

/** The outcome of a call the pipeline itself failed on. */
export function internalError(message: string): Outcome {
  return errorOutcome('step', ErrorCode.TOOL_FAILED, `the pipeline failed on this call: ${message}`);
}
