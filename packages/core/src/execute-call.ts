import type { CallRun } from './call-run.js';
import { admit, complete, internalError, safeCommit, startRun } from './call-stages.js';
import { dispatch } from './dispatch.js';
import { messageOf } from './errors.js';
import { followSignal } from './internal/signal-followers.js';
import type { Outcome } from './outcome.js';
import type { ParentCall, Runtime } from './runtime.js';
import type { SubCall } from './tool.js';

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
