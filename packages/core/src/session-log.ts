import { readFile } from 'node:fs/promises';
import { ErrorCode } from './errors.js';
import type { AnySessionEvent } from './events.js';
import type { Outcome } from './outcome.js';
import { parseLogLines } from './session-log-lines.js';

/** A session log read back from a JSONL file. */
export interface LoadedSessionLog {
  /** Every event, followed by a synthetic `tool/result` for each call whose result was never logged. */
  readonly events: readonly AnySessionEvent[];
  /** True when the last line was torn (a crash mid-write) and dropped. */
  readonly droppedTornLine: boolean;
  /** The ids of calls that got a synthetic `TOOL_OUTCOME_UNKNOWN` result. */
  readonly unknownOutcomes: readonly string[];
}

/**
 * Reads a JSONL session log. A torn last line is dropped; a bad line
 * anywhere else is `INVALID_SESSION_LOG` naming the line (except a torn line
 * that a later `session/resumed` event recorded). Calls with a
 * `tool/call` but no `tool/result` (the process died) get a synthetic
 * `TOOL_OUTCOME_UNKNOWN` result, so the transcript stays well formed.
 * To continue such a session, see `resumeSession`.
 */
export async function loadSessionLog(path: string): Promise<LoadedSessionLog> {
  const text = await readFile(path, 'utf8');
  const parsed = parseLogLines(text, path);
  const events: AnySessionEvent[] = parsed.events;
  const droppedTornLine = parsed.tornLastLine !== undefined;
  const open = new Map<string, AnySessionEvent>();
  for (const event of events) {
    if (event.call === undefined) continue;
    if (event.type === 'tool/call') open.set(event.call, event);
    else if (event.type === 'tool/result') open.delete(event.call);
  }
  let seq = events.at(-1)?.seq ?? 0;
  const unknownOutcomes: string[] = [];
  for (const [call, started] of open) {
    seq += 1;
    const outcome: Outcome = {
      status: 'error',
      stage: 'step',
      error: {
        code: ErrorCode.TOOL_OUTCOME_UNKNOWN,
        message: 'the session ended before this call had a result; it may or may not have run',
      },
    };
    const name = started.type === 'tool/call' ? started.data.name : '';
    const synthetic: AnySessionEvent = {
      seq,
      at: new Date().toISOString(),
      session: started.session,
      type: 'tool/result',
      call,
      ...(started.token === undefined ? {} : { token: started.token }),
      data: { name, outcome, synthetic: true },
    };
    events.push(synthetic);
    unknownOutcomes.push(call);
  }
  return { events, droppedTornLine, unknownOutcomes };
}
