import { callUi } from './admit.js';
import type { CallRun } from './call-run.js';
import { ErrorCode, messageOf } from './errors.js';
import { finalise } from './finalise.js';
import type { PostExecuteVerdict } from './hooks.js';
import { isPromiseLike, withDeadline } from './internal/deadline.js';
import type { JsonValue } from './json.js';
import { errorOutcome, type Outcome } from './outcome.js';
import type { Runtime } from './runtime.js';
import { genericResultCard } from './ui.js';

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
export async function postExecute(rt: Runtime, run: CallRun, outcome: Outcome): Promise<Outcome> {
  let current = outcome;
  const taps = rt.hooks.postExecute.taps;
  for (const tap of taps) {
    let verdict: PostExecuteVerdict | undefined | void;
    try {
      const returned = tap.fn({ call: run.identity, tool: run.tool, session: rt.session, args: run.args, outcome: current });
      if (isPromiseLike(returned)) {
        const timeout = tap.timeoutMs ?? rt.limits.tapTimeoutMs;
        const settled = await withDeadline(returned, timeout);
        if (settled.timedOut) throw new Error(`did not answer within ${timeout} ms`);
        verdict = settled.value;
      } else {
        verdict = returned;
      }
    } catch (error) {
      current = tapFailed(rt, run, current, tap.name, messageOf(error));
      continue;
    }
    if (verdict === undefined || verdict === null) continue;
    if (typeof verdict !== 'object') {
      current = tapFailed(rt, run, current, tap.name, 'returned something other than a verdict object');
      continue;
    }
    if (typeof verdict.addContext === 'string' && verdict.addContext !== '') {
      run.context.push({ call: run.identity.id, by: tap.name, text: verdict.addContext });
    }
    if (!fromBody(current)) continue;
    if (typeof verdict.block === 'string') {
      current = { status: 'blocked', stage: 'post-execute', by: tap.name, code: ErrorCode.POST_EXECUTE_BLOCKED, reason: verdict.block };
    } else if (Object.hasOwn(verdict, 'replaceOutput')) {
      current = { status: 'ok', stage: 'post-execute', by: tap.name, output: verdict.replaceOutput as JsonValue };
    }
  }
  return current;
}

function tapFailed(rt: Runtime, run: CallRun, current: Outcome, name: string, message: string): Outcome {
  if (!fromBody(current)) {
    rt.diagnostics.record(ErrorCode.POST_EXECUTE_FAILED, `tap:tools/post-execute:${name}`, message, run.identity.id);
    return current;
  }
  return errorOutcome('post-execute', ErrorCode.POST_EXECUTE_FAILED, `post-execute tap "${name}" failed: ${message}`, { by: name });
}

/** Stage 11, then 12: finalise, and let every observer see the frozen outcome. */
export async function finaliseAndObserve(rt: Runtime, run: CallRun, outcome: Outcome): Promise<Outcome> {
  const finalised = finalise(outcome);
  if (finalised.dropped !== undefined) {
    rt.diagnostics.record('ERROR_DATA_DROPPED', `tool:${run.identity.name}`, finalised.dropped, run.identity.id);
  }
  const frozen = finalised.outcome;
  const observers = rt.hooks.result.taps;
  if (observers.length === 0) return frozen;
  const info = Object.freeze({ call: run.identity, tool: run.tool, session: rt.session, args: run.args });
  const waits: Promise<void>[] = [];
  for (const observer of observers) {
    const fail = (error: unknown): void =>
      rt.diagnostics.record('OBSERVER_FAILED', `tap:tools/result:${observer.name}`, messageOf(error), run.identity.id);
    try {
      const returned = observer.fn(frozen, info);
      if (isPromiseLike(returned)) {
        const timeout = observer.timeoutMs ?? rt.limits.tapTimeoutMs;
        waits.push(
          withDeadline(returned, timeout).then((settled) => {
            if (settled.timedOut) fail(new Error(`did not settle within ${timeout} ms`));
          }, fail),
        );
      }
    } catch (error) {
      fail(error);
    }
  }
  if (waits.length > 0) await Promise.all(waits);
  return frozen;
}

/** Stages 13 and 14: the one `tool/result` event, then the completed card. */
export function commit(rt: Runtime, run: CallRun, outcome: Outcome): void | Promise<void> {
  const { identity } = run;
  const data =
    run.originalArgs === undefined
      ? { name: identity.name, outcome }
      : { name: identity.name, outcome, args: run.args as JsonValue, originalArgs: run.originalArgs as JsonValue };
  rt.log.append('tool/result', data, { call: identity.id, token: identity.token });
  const ui = rt.ui?.completed;
  if (ui === undefined) return;
  let card = genericResultCard(identity.name, outcome);
  const present = run.tool?.present?.presentResult;
  if (present !== undefined) {
    try {
      card = present.call(run.tool?.present, run.args, outcome);
    } catch (error) {
      rt.diagnostics.record('PRESENTER_FAILED', `presenter:${identity.name}`, messageOf(error), identity.id);
    }
  }
  return callUi(rt, identity.id, 'completed', () => ui.call(rt.ui, identity, card, outcome));
}
