import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type AnySessionEvent,
  type EventSink,
  exactJsonText,
  type LockedJsonlSink,
  loadSessionLog,
  openJsonlSink,
} from '@deepseek-ai/dsh-core';
import { DurableError, DurableErrorCode } from './errors.js';

/** Where a durable session's JSONL log goes: `<logDir>/<session>.jsonl`, the session id escaped as a URI component. */
export function sessionLogPath(logDir: string, session: string): string {
  return join(logDir, `${encodeURIComponent(session)}.jsonl`);
}

/** One attempt's writer of a durable session's log; `close()` flushes it and releases the log's lock. */
export interface DurableSessionLog extends EventSink {
  readonly path: string;
  close(): Promise<void>;
}

/** The events a log already holds, indexed for an attempt that replays some of them. */
interface Logged {
  readonly events: readonly AnySessionEvent[];
  /** `<call> <type>` → the file positions of that call's events of that type, in order. */
  readonly byCall: Map<string, number[]>;
  /** The token the call's first logged event carries: later events of the call keep it. */
  readonly tokens: Map<string, string>;
  readonly lastSeq: number;
}

// The attempts of this process holding a log: a new attempt of a session supersedes an earlier one
// that the engine already gave up on (a suspended Restate attempt whose handler never returns).
const holders = new Map<string, DurableSessionLog>();

/**
 * Opens the log of `session` at `path` for one attempt of a durable run.
 * Each attempt runs the whole pipeline again on a fresh host, so it emits the
 * events of the calls that an earlier attempt already logged (their bodies and
 * answers replayed from the engine's journal). This sink writes an event only
 * when the log lacks it: the n-th event of one type for a call id is written
 * once, whatever the number of attempts, and an event without a call that
 * follows a replayed one is matched against the event after that one in the
 * file. Events are renumbered to continue the file's `seq` with no gap, and a
 * call's events keep the token of its first logged event.
 *
 * A log whose last line a killed worker tore is terminated and recorded in a
 * `session/resumed` event first, as `resumeSession` does. Takes the log's
 * one-writer lock (`openJsonlSink`); a lock of a live process of this machine
 * fails the attempt with `SESSION_LOCKED`, which the engine retries.
 */
export async function openDurableSessionLog(path: string, session: string): Promise<DurableSessionLog> {
  await holders.get(path)?.close();
  await mkdir(join(path, '..'), { recursive: true });
  const sink = await openJsonlSink(path);
  let opened: DurableSessionLog;
  try {
    const logged = await readLogged(path, session, sink);
    opened = replaySkippingSink(sink, session, logged);
  } catch (error) {
    await sink.close?.();
    throw error;
  }
  holders.set(path, opened);
  return opened;
}

async function readLogged(path: string, session: string, sink: LockedJsonlSink): Promise<Logged> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    throw error;
  });
  const loaded = text === '' ? undefined : await loadSessionLog(path);
  const events = (loaded?.events ?? []).filter((e) => !(e.type === 'tool/result' && e.data.synthetic === true));
  const other = events.find((e) => e.session !== session);
  if (other !== undefined) {
    throw new DurableError(DurableErrorCode.INVALID_INPUT, `the log ${path} belongs to session "${other.session}", not "${session}"`);
  }
  let lastSeq = events.at(-1)?.seq ?? 0;
  if (text !== '' && !text.endsWith('\n')) await appendFile(path, '\n');
  if (loaded?.droppedTornLine === true) {
    // The torn line is the file's last line; readers skip it once a `session/resumed` right after it names it.
    const tornLine = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    lastSeq += 1;
    await sink.append({
      seq: lastSeq,
      at: new Date().toISOString(),
      session,
      type: 'session/resumed',
      data: { afterSeq: lastSeq - 1, interrupted: 0, tornLine },
    });
  }
  const byCall = new Map<string, number[]>();
  const tokens = new Map<string, string>();
  for (const [index, event] of events.entries()) {
    if (event.call === undefined) continue;
    const key = `${event.call} ${event.type}`;
    byCall.set(key, [...(byCall.get(key) ?? []), index]);
    if (event.token !== undefined && !tokens.has(event.call)) tokens.set(event.call, event.token);
  }
  return { events, byCall, tokens, lastSeq };
}

function replaySkippingSink(sink: LockedJsonlSink, session: string, logged: Logged): DurableSessionLog {
  const seen = new Map<string, number>();
  // The host's seq of each event this attempt emitted → its seq in the file (its counterpart's when skipped).
  const fileSeqs = new Map<number, number>();
  let seq = logged.lastSeq;
  let first = true;
  // The file position of the logged event the last skipped one matched; undefined after a written one.
  let matched: number | undefined;

  /** The file position of the event's counterpart, when the log already holds it. */
  const counterpart = (event: AnySessionEvent): number | undefined => {
    const isFirst = first;
    first = false;
    if (event.call !== undefined) {
      const key = `${event.call} ${event.type}`;
      const ordinal = seen.get(key) ?? 0;
      seen.set(key, ordinal + 1);
      return logged.byCall.get(key)?.[ordinal];
    }
    // An attempt replays what the log holds, then goes on: an event without a call is the one after the
    // last replayed event, or (the attempt's first event, a `step/start` naming its calls) an equal one.
    const same = (at: number) => {
      const other = logged.events[at];
      return other !== undefined && other.type === event.type && exactJsonText(other.data) === exactJsonText(event.data);
    };
    if (matched !== undefined) return same(matched + 1) ? matched + 1 : undefined;
    if (!isFirst) return undefined;
    for (let at = logged.events.length - 1; at >= 0; at--) if (same(at)) return at;
    return undefined;
  };

  let closing: Promise<void> | undefined;
  const self: DurableSessionLog = {
    path: sink.path,
    append(hostEvent: AnySessionEvent): void | Promise<void> {
      const event = withFileSeqs(hostEvent, fileSeqs);
      const at = counterpart(event);
      matched = at;
      if (at !== undefined) {
        fileSeqs.set(hostEvent.seq, logged.events[at]?.seq ?? 0);
        return undefined;
      }
      seq += 1;
      fileSeqs.set(hostEvent.seq, seq);
      let token = event.token;
      if (event.call !== undefined) {
        const known = logged.tokens.get(event.call);
        if (known === undefined && token !== undefined) logged.tokens.set(event.call, token);
        else if (known !== undefined) token = known;
      }
      return sink.append({ ...event, seq, session, ...(token === undefined ? {} : { token }) } as AnySessionEvent);
    },
    flush: async () => {
      await sink.flush?.();
    },
    close(): Promise<void> {
      if (holders.get(sink.path) === self) holders.delete(sink.path);
      closing ??= sink.close?.() ?? Promise.resolve();
      return closing;
    },
  };
  return self;
}

/** Fields of event data that name another event by its `seq`. */
const seqFields = ['startSeq', 'callSeq'] as const;

/** The event with the seqs its data names translated from the host's numbering to the file's. */
function withFileSeqs(event: AnySessionEvent, fileSeqs: ReadonlyMap<number, number>): AnySessionEvent {
  const data = event.data as Record<string, unknown>;
  let mapped: Record<string, unknown> | undefined;
  for (const field of seqFields) {
    const value = data[field];
    const fileSeq = typeof value === 'number' ? fileSeqs.get(value) : undefined;
    if (fileSeq !== undefined) mapped = { ...(mapped ?? data), [field]: fileSeq };
  }
  return mapped === undefined ? event : ({ ...event, data: mapped } as AnySessionEvent);
}
