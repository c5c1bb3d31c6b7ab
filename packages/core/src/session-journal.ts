import { readFile } from 'node:fs/promises';
import { DshError, ErrorCode } from './errors.js';
import type { AnySessionEvent, SessionEvent } from './events.js';
import type { Outcome } from './outcome.js';
import { parseLogLines } from './session-log-lines.js';

/** A top-level call of the session, with its one result once it has one. */
export interface JournalCall {
  readonly id: string;
  readonly name: string;
  /** The arguments as the model sent them (JSON text or an object). */
  readonly args: unknown;
  /** The `seq` of the call's first `tool/call` event. */
  readonly seq: number;
  /** Its result's outcome; absent while the call has none. */
  outcome: Outcome | undefined;
}

/** A `tool/call` that has no `tool/result`. */
export interface OpenCall {
  readonly event: SessionEvent<'tool/call'>;
  /** The transcript entry it answers; absent for a sub-call. */
  readonly entry: JournalCall | undefined;
}

/** A `step/start` without a `step/end`. */
export interface OpenStep {
  /** The `seq` of its `step/start`. */
  readonly seq: number;
  /** For a subagent's step, the call it ran under. */
  readonly parent: string | undefined;
}

/** A session log checked for resuming: one session, `seq` from 1 with no gap. */
export interface SessionJournal {
  readonly session: string;
  readonly lastSeq: number;
  /** The 1-based line of a torn last line, when the log came from a file and had one. */
  readonly tornLastLine: number | undefined;
  /** Whether the file ends with a newline (true for loaded events). */
  readonly endsWithNewline: boolean;
  /** Every top-level call in the order its first `tool/call` was logged (the model's order). */
  readonly calls: readonly JournalCall[];
  /** Calls without a result, in the order they were first logged (the model's order, re-runs included). */
  readonly open: readonly OpenCall[];
  /**
   * Every `step/start` without a `step/end`, oldest first: steps a crash cut (or a resume killed
   * before it ended them). Empty for a log written before steps were logged.
   */
  readonly openSteps: readonly OpenStep[];
}

function invalid(message: string, seq?: number): DshError {
  return new DshError(ErrorCode.INVALID_SESSION_LOG, message, seq === undefined ? undefined : { data: { seq } });
}

/** A call's latest `tool/call` while it has no result; `rerun` once a resume announced it runs again. */
interface Pending extends OpenCall {
  rerun: boolean;
}

/**
 * Checks a session log's events for resuming and finds its unanswered calls.
 * Throws `INVALID_SESSION_LOG` for an empty log, events of two sessions, or a
 * `seq` that does not start at 1 and rise by one (a log with lines lost or
 * two writers). The synthetic results `loadSessionLog` adds (`synthetic: true`)
 * were never logged: they are skipped, so their calls stay unanswered.
 *
 * A call run again on an earlier resume (`tool/interrupted` with `rerun`) is
 * answered by the result of its new `tool/call`. Until that `tool/call` is
 * logged the call stays unanswered under its old one: a resume cut short
 * between announcing a re-run and running it loses no call.
 */
export function journalOf(
  events: readonly AnySessionEvent[],
  where = 'the session log',
  file?: { readonly tornLastLine: number | undefined; readonly endsWithNewline: boolean },
): SessionJournal {
  const logged = events.filter((e) => !isSynthetic(e));
  const first = logged[0];
  if (first === undefined) throw invalid(`${where} has no events: there is no session to resume`);
  const calls: JournalCall[] = [];
  const open = new Map<string, Pending[]>();
  const openSteps = new Map<number, OpenStep>();
  for (const [index, event] of logged.entries()) {
    if (event.session !== first.session) {
      throw invalid(`${where}: event ${event.seq} belongs to session "${event.session}", not "${first.session}"`, event.seq);
    }
    if (event.seq !== index + 1) {
      throw invalid(`${where}: event ${index + 1} has seq ${event.seq}: events are missing or a second writer appended`, event.seq);
    }
    if (event.type === 'step/start') openSteps.set(event.seq, { seq: event.seq, parent: event.data.parent });
    else if (event.type === 'step/end') openSteps.delete(event.data.startSeq);
    if (event.call === undefined) continue;
    const list = open.get(event.call) ?? [];
    if (event.type === 'tool/call') {
      // A re-run takes the place of the call it runs again, and answers its transcript entry.
      const at = list.findIndex((p) => p.rerun);
      let entry = at >= 0 ? list.splice(at, 1)[0]?.entry : undefined;
      if (at < 0 && event.data.parent === undefined) {
        entry = { id: event.call, name: event.data.name, args: event.data.args, seq: event.seq, outcome: undefined };
        calls.push(entry);
      }
      list.push({ event, entry, rerun: false });
      open.set(event.call, list);
    } else if (event.type === 'tool/result') {
      const answered = list.shift();
      if (answered?.entry !== undefined) answered.entry.outcome = event.data.outcome;
    } else if (event.type === 'tool/interrupted') {
      // A later resume may decide otherwise (`interrupted`): then the call's own result answers it.
      const pending = list.find((p) => p.event.seq === event.data.callSeq);
      if (pending !== undefined) pending.rerun = event.data.resolution === 'rerun';
    }
  }
  const unanswered: OpenCall[] = [...open.values()]
    .flat()
    .sort((a, b) => firstSeq(a) - firstSeq(b))
    .map(({ event, entry }) => ({ event, entry }));
  return {
    session: first.session,
    lastSeq: logged.length,
    tornLastLine: file?.tornLastLine,
    endsWithNewline: file?.endsWithNewline ?? true,
    calls,
    open: unanswered,
    openSteps: [...openSteps.values()],
  };
}

/** Where the call was first logged: a re-run keeps the place the model gave it. */
function firstSeq(open: OpenCall): number {
  return open.entry?.seq ?? open.event.seq;
}

function isSynthetic(event: AnySessionEvent): boolean {
  return event.type === 'tool/result' && event.data.synthetic === true;
}

/** Reads the JSONL log at `path` and checks it with {@link journalOf}. Never writes to it. */
export async function readSessionJournal(path: string): Promise<SessionJournal> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new DshError(ErrorCode.INVALID_SESSION_LOG, `cannot read the session log ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const lines = parseLogLines(text, path);
  return journalOf(lines.events, path, lines);
}
