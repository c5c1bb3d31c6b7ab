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
  /** Calls without a result, in log order. */
  readonly open: readonly OpenCall[];
}

function invalid(message: string, seq?: number): DshError {
  return new DshError(ErrorCode.INVALID_SESSION_LOG, message, seq === undefined ? undefined : { data: { seq } });
}

/**
 * Checks a session log's events for resuming and finds its unanswered calls.
 * Throws `INVALID_SESSION_LOG` for an empty log, events of two sessions, or a
 * `seq` that does not start at 1 and rise by one (a log with lines lost or
 * two writers). A call run again on an earlier resume (`tool/interrupted`
 * with `rerun`) is answered by the result of its new `tool/call`.
 */
export function journalOf(
  events: readonly AnySessionEvent[],
  where = 'the session log',
  file?: { readonly tornLastLine: number | undefined; readonly endsWithNewline: boolean },
): SessionJournal {
  const first = events[0];
  if (first === undefined) throw invalid(`${where} has no events: there is no session to resume`);
  const calls: JournalCall[] = [];
  const open = new Map<string, OpenCall[]>();
  const rerun = new Map<string, JournalCall | undefined>();
  for (const [index, event] of events.entries()) {
    if (event.session !== first.session) {
      throw invalid(`${where}: event ${event.seq} belongs to session "${event.session}", not "${first.session}"`, event.seq);
    }
    if (event.seq !== index + 1) {
      throw invalid(`${where}: event ${index + 1} has seq ${event.seq}: events are missing or a second writer appended`, event.seq);
    }
    if (event.call === undefined) continue;
    if (event.type === 'tool/call') {
      let entry = rerun.get(event.call);
      rerun.delete(event.call);
      if (entry === undefined && event.data.parent === undefined) {
        entry = { id: event.call, name: event.data.name, args: event.data.args, seq: event.seq, outcome: undefined };
        calls.push(entry);
      }
      const list = open.get(event.call) ?? [];
      list.push({ event, entry });
      open.set(event.call, list);
    } else if (event.type === 'tool/result') {
      const answered = open.get(event.call)?.shift();
      if (answered?.entry !== undefined) answered.entry.outcome = event.data.outcome;
    } else if (event.type === 'tool/interrupted' && event.data.resolution === 'rerun') {
      // The call runs again under the same id: its new tool/call takes the old one's place.
      const list = open.get(event.call) ?? [];
      const at = list.findIndex((o) => o.event.seq === event.data.callSeq);
      if (at >= 0) rerun.set(event.call, list.splice(at, 1)[0]?.entry);
    }
  }
  const unanswered = [...open.values()].flat().sort((a, b) => a.event.seq - b.event.seq);
  return {
    session: first.session,
    lastSeq: events.length,
    tornLastLine: file?.tornLastLine,
    endsWithNewline: file?.endsWithNewline ?? true,
    calls,
    open: unanswered,
  };
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
