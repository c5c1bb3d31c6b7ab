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
 * line elsewhere is `INVALID_SESSION_LOG` naming it, unless the line right
 * after it is the `session/resumed` event that recorded it as the torn last
 * line of an earlier crash: the log is never rewritten, so that line stays.
 */
export function parseLogLines(text: string, path: string): LogLines {
  const lines = text.split('\n');
  const endsWithNewline = lines.at(-1) === '';
  if (endsWithNewline) lines.pop();
  const events: AnySessionEvent[] = [];
  for (const [index, line] of lines.entries()) {
    const event = eventOf(line);
    if (typeof event === 'object') {
      events.push(event);
      continue;
    }
    const last = index === lines.length - 1;
    if (last && (event === 'not-json' || !endsWithNewline)) return { events, tornLastLine: index + 1, endsWithNewline };
    if (recordsTornLine(lines[index + 1], index + 1)) continue;
    const what = event === 'not-json' ? 'not a JSON line' : 'not a session event';
    throw new DshError(ErrorCode.INVALID_SESSION_LOG, `${path}:${index + 1}: ${what}`, { data: { path, line: index + 1 } });
  }
  return { events, tornLastLine: undefined, endsWithNewline };
}
