import { describedEventTypes } from './describe-event.js';
import { type CallView, elapsedMs, type LoggedEvent, type SessionView } from './session-view.js';

/** One call in `dsh log --json`: what was asked, decided, answered and run, with every event and its sub-calls. */
export interface CallJson {
  readonly id: string;
  readonly name: string;
  readonly args: unknown;
  readonly parent: string | null;
  readonly startedAt: string;
  readonly endedAt: string | null;
  readonly durationMs: number | null;
  /** The outcome as logged (`null` without a result); `synthetic`: made up because the log ends first. */
  readonly outcome: unknown;
  readonly synthetic: boolean;
  /** `permissions/decision` data: what the rules and mode decided, and which rule or mode. */
  readonly decisions: readonly unknown[];
  /** `approval/request` and `approval/answer` data, in order. */
  readonly approvals: readonly { readonly type: string; readonly data: unknown }[];
  /** `hook/result` data: every hook that ran, its exit, decision and duration. */
  readonly hooks: readonly unknown[];
  /** `tool/late-settlement` data, when the body settled after the result. */
  readonly lateSettlement: unknown;
  /** Every event tied to this call, as logged. */
  readonly events: readonly LoggedEvent[];
  readonly children: readonly CallJson[];
}

/** A call as JSON. */
export function callJson(call: CallView): CallJson {
  const dataOf = (type: string): unknown[] => call.events.filter((e) => e.type === type).map((e) => e.data);
  return {
    id: call.id,
    name: call.name,
    args: call.args,
    parent: call.parent ?? null,
    startedAt: call.startedAt,
    endedAt: call.endedAt ?? null,
    durationMs: elapsedMs(call.startedAt, call.endedAt) ?? null,
    outcome: call.result?.outcome ?? null,
    synthetic: call.synthetic,
    decisions: dataOf('permissions/decision'),
    approvals: call.events.filter((e) => e.type.startsWith('approval/')).map((e) => ({ type: e.type, data: e.data })),
    hooks: dataOf('hook/result'),
    lateSettlement: dataOf('tool/late-settlement')[0] ?? null,
    events: call.events,
    children: call.children.map(callJson),
  };
}

/** What `dsh log --json` prints for a whole log. */
export function sessionJson(
  file: string,
  view: SessionView,
  loaded: { readonly events: number; readonly droppedTornLine: boolean; readonly unknownOutcomes: readonly string[] },
): unknown {
  return {
    file,
    session: view.session ?? null,
    events: loaded.events,
    droppedTornLine: loaded.droppedTornLine,
    unknownOutcomes: loaded.unknownOutcomes,
    // Types this version shows only raw: the log comes from a newer version, or a plugin this one does not know.
    unknownEventTypes: unknownTypes(view),
    preamble: view.preamble,
    // False for a log written before core marked steps: its steps are guessed from calls that overlapped.
    stepsMarked: view.stepsMarked,
    steps: view.steps.map((step) => ({
      index: step.index,
      turn: step.turn ?? null,
      // The step's step/start and step/end events; null when the log has none.
      start: step.start ?? null,
      end: step.end ?? null,
      calls: step.calls.map(callJson),
      notes: step.notes,
    })),
  };
}

/** The event types of the log this version does not describe in words. */
export function unknownTypes(view: SessionView): string[] {
  const known = new Set(describedEventTypes);
  const types = new Set<string>();
  const see = (e: LoggedEvent): void => {
    if (!known.has(e.type)) types.add(e.type);
  };
  view.preamble.forEach(see);
  for (const step of view.steps) {
    if (step.turn !== undefined) see(step.turn);
    step.notes.forEach(see);
  }
  for (const call of view.calls.values()) call.events.forEach(see);
  return [...types].sort();
}
