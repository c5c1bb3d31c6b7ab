import { DshError, ErrorCode } from './errors.js';
import type { AnySessionEvent } from './events.js';
import { parseJsonExact } from './json.js';

/** The events of a JSONL session log, and what was skipped reading it. */
export interface LogLines {
  readonly events: AnySessionEvent[];
  /** The 1-based line of a torn last line (a crash mid-write), dropped; absent when none. */
  readonly tornLastLine: number | undefined;
  /** Whether the text ends with a newline (false after a torn last line that nothing terminated). */
  readonly endsWithNewline: boolean;
}

function isEvent(value: unknown): value is AnySessionEvent {
  const e = value as Partial<AnySessionEvent> | null;
  return (
    typeof e === 'object' &&
    e !== null &&
    typeof e.seq === 'number' &&
    typeof e.type === 'string' &&
    typeof e.session === 'string' &&
    typeof e.at === 'string' &&
    'data' in e
  );
}

function eventOf(line: string): AnySessionEvent | 'not-json' | 'not-event' {
  let parsed: unknown;
  try {
    parsed = parseJsonExact(line);
  } catch {
    return 'not-json';
  }
  return isEvent(parsed) ? parsed : 'not-event';
}

/** Whether `line` is the `session/resumed` event that recorded line `torn` as the crash's torn line. */
function recordsTornLine(line: string | undefined, torn: number): boolean {
  if (line === undefined) return false;
  const event = eventOf(line);
  return typeof event === 'object' && event.type === 'session/resumed' && event.data.tornLine === torn;
}

/**
 * Splits a JSONL session log into events. A torn last line is dropped. A bad
 * line elsewhere is `INVALID_SESSION_LOG` naming it, unless it starts a run of
 * bad lines that the `session/resumed` event right after the run recorded as
 * the torn last line of an earlier crash (the log is never rewritten, so those
 * lines stay), or that runs to a torn last line. A run longer than one line is
 * what a resume killed while recording a torn line leaves: it had terminated
 * the line, and its own first event was torn in turn.
 */
export function parseLogLines(text: string, path: string): LogLines {
  const lines = text.split('\n');
  const endsWithNewline = lines.at(-1) === '';
  if (endsWithNewline) lines.pop();
  const events: AnySessionEvent[] = [];
  for (let index = 0; index < lines.length; index++) {
    const event = eventOf(lines[index] ?? '');
    if (typeof event === 'object') {
      events.push(event);
      continue;
    }
    // A torn line is never JSON: only such lines make a run.
    const end = event === 'not-json' ? badRunEnd(lines, index) : index;
    const last = end === lines.length - 1;
    const torn = last && (!endsWithNewline || event === 'not-json');
    if (torn) return { events, tornLastLine: end + 1, endsWithNewline };
    if (!last && recordsTornLine(lines[end + 1], end + 1)) {
      index = end;
      continue;
    }
    const what = event === 'not-json' ? 'not a JSON line' : 'not a session event';
    throw new DshError(ErrorCode.INVALID_SESSION_LOG, `${path}:${index + 1}: ${what}`, { data: { path, line: index + 1 } });
  }
  return { events, tornLastLine: undefined, endsWithNewline };
}

/** The index of the last line of the run of lines that are not JSON at `start`. */
function badRunEnd(lines: readonly string[], start: number): number {
  let end = start;
  while (end + 1 < lines.length && eventOf(lines[end + 1] ?? '') === 'not-json') end += 1;
  return end;
}
