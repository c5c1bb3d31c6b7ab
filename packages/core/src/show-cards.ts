import type { CallRun } from './call-run.js';
import { messageOf } from './errors.js';
import { isPromiseLike, withDeadline } from './internal/deadline.js';
import type { Outcome } from './outcome.js';
import type { Runtime } from './runtime.js';
import type { Card } from './tool.js';
import { genericCallCard, genericResultCard } from './ui.js';

/** Stage 2: the pending card. A throwing presenter or UI never fails the call. */
export function showPending(rt: Runtime, run: CallRun): void | Promise<void> {
  const ui = rt.ui;
  if (ui?.pending === undefined) return;
  const presenter = run.tool?.present;
  const card = cardOf(rt, run, presenter?.presentCall && (() => presenter.presentCall?.(run.parsed)), () =>
    genericCallCard(run.identity.name, run.parsed),
  );
  return callUi(rt, run.identity.id, 'pending', () => ui.pending?.(run.identity, card));
}

/** Stage 14: the completed card. */
export function showCompleted(rt: Runtime, run: CallRun, outcome: Outcome): void | Promise<void> {
  const ui = rt.ui;
  if (ui?.completed === undefined) return;
  // A tool's presenter is promised valid arguments; a call that never had them gets the generic card.
  const presenter = run.validated ? run.tool?.present : undefined;
  const card = cardOf(rt, run, presenter?.presentResult && (() => presenter.presentResult?.(run.args, outcome)), () =>
    genericResultCard(run.identity.name, outcome),
  );
  return callUi(rt, run.identity.id, 'completed', () => ui.completed?.(run.identity, card, outcome));
}

/** The presenter's card, or the generic one when there is no presenter or it threw (recorded). */
function cardOf(rt: Runtime, run: CallRun, present: (() => Card | undefined) | undefined, generic: () => Card): Card {
  if (present !== undefined) {
    try {
      const card = present();
      if (card !== undefined) return card;
    } catch (error) {
      rt.diagnostics.record('PRESENTER_FAILED', `presenter:${run.identity.name}`, messageOf(error), run.identity.id);
    }
  }
  return generic();
}

/** Runs a UI adapter method with the host's UI deadline, recording failures. */
function callUi(rt: Runtime, call: string, what: string, fn: () => unknown): void | Promise<void> {
  const fail = (error: unknown): void => rt.diagnostics.record('UI_FAILED', `ui:${what}`, messageOf(error), call);
  let result: unknown;
  try {
    result = fn();
  } catch (error) {
    fail(error);
    return;
  }
  if (!isPromiseLike(result)) return;
  return withDeadline(result, rt.limits.uiTimeoutMs).then((settled) => {
    if (settled.timedOut) fail(new Error(`did not settle within ${rt.limits.uiTimeoutMs} ms`));
  }, fail);
}
