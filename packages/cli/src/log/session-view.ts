import { type AnySessionEvent, type Outcome, outcomeSchema } from '@deepseek-ai/dsh-core';

/** Any event as read from a log, of a type this version knows or not. */
export type LoggedEvent =
  | AnySessionEvent
  | {
      readonly seq: number;
      readonly at: string;
      readonly session: string;
      readonly type: string;
      readonly call?: string;
      readonly token?: string;
      readonly data: unknown;
    };

/** One call of the log with everything logged about it, and its sub-calls. */
export interface CallView {
  readonly id: string;
  readonly name: string;
  /** The arguments as the model sent them (JSON text or an object), from `tool/call`. */
  readonly args: unknown;
  /** The outer call, for a sub-call (`run_code`'s `<parent>:code:<n>`, a subagent's `<parent>:agent:<n>`). */
  readonly parent: string | undefined;
  /** When `tool/call` was logged. */
  readonly startedAt: string;
  /** When `tool/result` was logged; undefined when the log has none, or only the one `loadSessionLog` made up. */
  endedAt: string | undefined;
  /** The outcome from `tool/result`, when it has one this version can read. */
  outcome: Outcome | undefined;
  /** `tool/result`'s data as logged, even when its outcome cannot be read. */
  result: Readonly<Record<string, unknown>> | undefined;
  /** True when the result was made up by `loadSessionLog`: the log ends before the call's result. */
  synthetic: boolean;
  /** Every event tied to this call, in log order (not its sub-calls'). */
  readonly events: LoggedEvent[];
  readonly children: CallView[];
}

/** The calls of one step (calls that ran together), with what the step logged besides them. */
export interface StepView {
  /** From 1. */
  readonly index: number;
  /** The `agent/turn` event that asked for these calls, when the log has one. */
  turn: LoggedEvent | undefined;
  /** The step's `step/start` (core logs it since issue 38): the step's calls are exactly the ones it lists. */
  start: LoggedEvent | undefined;
  /** The step's `step/end`: how it ended. Undefined when the log has none (still running, or cut by a crash). */
  end: LoggedEvent | undefined;
  readonly calls: CallView[];
  /** Events of no call logged during or right after the step: `context/message`, plugin notes, unknown types. */
  readonly notes: LoggedEvent[];
}

/** A session log arranged for reading: steps, calls, sub-calls. */
export interface SessionView {
  readonly session: string | undefined;
  readonly steps: readonly StepView[];
  /** Events before the first step that belong to no call (a plugin's configuration problem, say). */
  readonly preamble: readonly LoggedEvent[];
  /** Every call by id, sub-calls included (an id a later step used again: its last call). */
  readonly calls: ReadonlyMap<string, CallView>;
  /** Top-level calls and sub-calls, each counted once even when a later step used its id again. */
  readonly counts: { readonly calls: number; readonly subCalls: number };
  /** True when the log marks its steps (`step/start`, or `agent/turn`); otherwise steps are guessed from calls that overlapped. */
  readonly stepsMarked: boolean;
}

const nested = /^(.+):(code|agent):\d+$/;

/** The outer call of a sub-call id (`a:code:0` → `a`), when it has that shape. */
export function parentOfId(id: string): string | undefined {
  return nested.exec(id)?.[1];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Arranges events into steps and calls. A step is what one `step/start`
 * lists, up to its `step/end` (a subagent's nested step, with a `parent`,
 * goes with its parent call; the step a resume runs to call cut calls again
 * adds no step: its calls keep their cards). A log written before core
 * marked steps has no marker, so there a step is guessed: the top-level
 * calls that were running together. A new one starts with a call logged
 * while none is open, after a `context/message` (which ends a step), and at
 * an `agent/turn` (a subagent's turn goes with its parent call instead).
 * Sub-calls go under their parent, by the `parent` of their `tool/call` or
 * the shape of their id. Nothing here throws on an event it does not know:
 * it is kept, in order.
 */
export function viewOf(events: readonly LoggedEvent[]): SessionView {
  const calls = new Map<string, CallView>();
  const steps: StepView[] = [];
  const preamble: LoggedEvent[] = [];
  const open = new Set<string>();
  const marks = new StepMarks();
  let current: StepView | undefined;
  let closed = true;
  let stepsMarked = false;
  let topLevel = 0;
  let subCalls = 0;
  const newStep = (turn: LoggedEvent | undefined): StepView => {
    current = { index: steps.length + 1, turn, start: undefined, end: undefined, calls: [], notes: [] };
    steps.push(current);
    closed = false;
    return current;
  };
  for (const event of events) {
    if (event.type === 'agent/turn' && (!isRecord(event.data) || event.data.parent === undefined)) {
      stepsMarked = true;
      newStep(event);
      continue;
    }
    const mark = stepMark(event);
    if (mark?.kind === 'start' && !mark.rerun) {
      stepsMarked = true;
      // The agent logs its turn, then runs the turn's calls as one step: one step on the page.
      const step =
        current !== undefined && current.turn !== undefined && current.start === undefined && current.calls.length === 0
          ? current
          : newStep(undefined);
      step.start = event;
      closed = false;
      marks.started(event.seq, step, mark.calls);
      continue;
    }
    if (mark?.kind === 'start') {
      // A resume's re-run: its calls keep the cards of the step the crash cut.
      const cut = mark.calls.map((id) => calls.get(id)).find((c) => c !== undefined);
      const step = steps.find((s) => cut !== undefined && s.calls.includes(cut)) ?? current;
      if (step === undefined) preamble.push(event);
      else step.notes.push(event);
      if (step !== undefined) marks.rerun(event.seq, step);
      continue;
    }
    if (mark?.kind === 'end') {
      const step = marks.ended(mark.startSeq);
      if (step !== undefined && step.start?.seq === mark.startSeq) {
        step.end = event;
        if (step === current) closed = true;
        continue;
      }
      if (step !== undefined) {
        step.notes.push(event);
        continue;
      }
      // Not a top-level step this view knows: a nested step's end goes with its parent call, below.
    }
    if (event.type === 'session/resumed') marks.resumed();
    if (event.type === 'tool/call' && event.call !== undefined && isRecord(event.data)) {
      const earlier = calls.get(event.call);
      const marked = event.data.parent === undefined ? marks.stepOf(event.call) : undefined;
      // A call a resume runs again (its tool is idempotent) logs a second `tool/call` under the same id: one card.
      if (marked === undefined && earlier !== undefined && earlier.result === undefined) {
        earlier.events.push(event);
        open.add(earlier.id);
        continue;
      }
      const data = event.data;
      const parentId = typeof data.parent === 'string' ? data.parent : parentOfId(event.call);
      const parent = parentId === undefined ? undefined : calls.get(parentId);
      const view: CallView = {
        id: event.call,
        name: typeof data.name === 'string' ? data.name : '?',
        args: data.args,
        parent: parent?.id,
        startedAt: event.at,
        endedAt: undefined,
        outcome: undefined,
        result: undefined,
        synthetic: false,
        events: [event],
        children: [],
      };
      calls.set(event.call, view);
      if (parent !== undefined) {
        subCalls += 1;
        parent.children.push(view);
        continue;
      }
      topLevel += 1;
      // Providers number calls per message (call_0, call_1, …): an id seen before, finished, is a new model step.
      const reused = earlier !== undefined && earlier.parent === undefined;
      const step =
        marked ??
        (current !== undefined &&
        !closed &&
        !reused &&
        (open.size > 0 || current.calls.length === 0 || current.turn !== undefined || current.start !== undefined)
          ? current
          : newStep(undefined));
      step.calls.push(view);
      open.add(view.id);
      continue;
    }
    // A subagent's `agent/turn` names no call but its `parent`: it belongs with the task call it ran under.
    const parentOfTurn = isRecord(event.data) && typeof event.data.parent === 'string' ? event.data.parent : undefined;
    const owner = calls.get(event.call ?? parentOfTurn ?? '');
    if (owner === undefined) {
      if (current === undefined) preamble.push(event);
      else current.notes.push(event);
      if (event.type === 'context/message') closed = true;
      continue;
    }
    owner.events.push(event);
    if (event.type === 'tool/result' && isRecord(event.data)) {
      owner.result = event.data;
      owner.synthetic = event.data.synthetic === true;
      // loadSessionLog stamps a made-up result with the time it read the log: no end time to show.
      owner.endedAt = owner.synthetic ? undefined : event.at;
      const parsed = outcomeSchema.safeParse(event.data.outcome);
      owner.outcome = parsed.success ? (parsed.data as Outcome) : undefined;
      open.delete(owner.id);
      // A step whose calls all finished stays open for its context message; the next top-level call starts a new one.
    }
  }
  return { session: events[0]?.session, steps, preamble, calls, counts: { calls: topLevel, subCalls }, stepsMarked };
}

/** What a `step/start` or `step/end` says, when its data has the shape core logs. */
type StepMark =
  | { readonly kind: 'start'; readonly calls: readonly string[]; readonly rerun: boolean }
  | { readonly kind: 'end'; readonly startSeq: number };

/** A top-level step event read as a mark; undefined for any other event, and for a subagent's (it has a `parent`). */
function stepMark(event: LoggedEvent): StepMark | undefined {
  if ((event.type !== 'step/start' && event.type !== 'step/end') || !isRecord(event.data) || event.data.parent !== undefined)
    return undefined;
  const d = event.data;
  if (event.type === 'step/end') return typeof d.startSeq === 'number' ? { kind: 'end', startSeq: d.startSeq } : undefined;
  if (!Array.isArray(d.calls)) return undefined;
  return { kind: 'start', calls: d.calls.filter((c): c is string => typeof c === 'string'), rerun: d.rerun === true };
}

/** The steps a log marked: which step each `step/start` began, and which calls each still waits for. */
class StepMarks {
  readonly #bySeq = new Map<number, StepView>();
  /** Call id → the open steps that list it and have not seen its `tool/call`, oldest first. */
  readonly #waiting = new Map<string, StepView[]>();

  started(seq: number, step: StepView, ids: readonly string[]): void {
    this.#bySeq.set(seq, step);
    for (const id of ids) this.#waiting.set(id, [...(this.#waiting.get(id) ?? []), step]);
  }

  /** A resume's re-run step: its `step/end` goes with the step whose calls it ran again. */
  rerun(seq: number, step: StepView): void {
    this.#bySeq.set(seq, step);
  }

  /** The marked step a top-level `tool/call` of `id` belongs to, if one waits for it. */
  stepOf(id: string): StepView | undefined {
    const queue = this.#waiting.get(id);
    const step = queue?.shift();
    if (queue?.length === 0) this.#waiting.delete(id);
    return step;
  }

  /** The step `step/start` at `startSeq` began; it waits for no more calls. */
  ended(startSeq: number): StepView | undefined {
    const step = this.#bySeq.get(startSeq);
    if (step === undefined || step.start?.seq !== startSeq) return step;
    for (const [id, queue] of this.#waiting) {
      const left = queue.filter((s) => s !== step);
      if (left.length === 0) this.#waiting.delete(id);
      else this.#waiting.set(id, left);
    }
    return step;
  }

  /** After a resume, no call of an earlier step is logged for the first time: a later one with the same id is a new call. */
  resumed(): void {
    this.#waiting.clear();
  }
}

/** Milliseconds between two logged timestamps; undefined when either is missing or unreadable. */
export function elapsedMs(from: string | undefined, to: string | undefined): number | undefined {
  if (from === undefined || to === undefined) return undefined;
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) ? ms : undefined;
}
