import type { EventSink, Host, JsonValue, StepCall } from '@deepseek-ai/dsh-core';
import type { Durable } from './durable.js';
import { attachDurable, type DurableCreateHostOptions, type DurableHostOptions, durableCreateHostOptions } from './durable-host.js';
import { openDurableSessionLog, sessionLogPath } from './durable-session-log.js';
import { DurableError, DurableErrorCode } from './errors.js';

/** What the host factory gets: the session id and the `createHost` options it must pass on. */
export interface SessionSetup {
  readonly session: string;
  /**
   * Spread into `createHost`: without them an `ask` is not durable (and, with no provider, denied).
   * With `logDir`, `sink` writes the session's JSONL log.
   */
  readonly hostOptions: DurableCreateHostOptions & { readonly session: string; readonly sink?: EventSink };
  readonly durable: Durable;
}

/** What a session program (a `run`) gets. */
export interface SessionRun {
  readonly session: string;
  readonly host: Host;
  readonly durable: Durable;
}

/** One attempt's session, as {@link openSessionHost} opens it: `close()` when the attempt ends. */
export interface OpenedSession extends SessionRun {
  /** Flushes and closes the session log (with `logDir`) and releases its lock; nothing without one. */
  close(): Promise<void>;
}

/** The input of one session step: one assistant message's tool calls. */
export interface StepInput {
  readonly calls: readonly StepCall[];
}

/** How an engine binding builds a session's host; the same for every binding. */
export interface SessionHostOptions extends DurableHostOptions {
  /**
   * Names this host configuration (tools, plugins, policies). A session is
   * bound to the first `hostId` that runs it; a later step on a worker with
   * another one fails with `SESSION_HOST_MISMATCH` instead of mixing two
   * configurations in one journal.
   */
  readonly hostId: string;
  /** Builds a fresh host for one attempt; called on every attempt, so it must not touch the world. */
  readonly createHost: (setup: SessionSetup) => Host | Promise<Host>;
  /** A session program (an agent loop) run by `submitRun`; wrap its model with `durableModel`. */
  readonly run?: (run: SessionRun, input: JsonValue) => Promise<JsonValue>;
  /**
   * A folder for the sessions' JSONL logs, one file per session id (`<logDir>/<session>.jsonl`,
   * see `sessionLogPath`) that `dsh log` reads: each call once, with one `tool/call` and one
   * `tool/result`, however many attempts ran it. Off by default.
   */
  readonly logDir?: string;
}

/** Whether `value` is `{ calls: [{ id, name, ... }] }`. */
export function isStepInput(value: unknown): value is StepInput {
  if (typeof value !== 'object' || value === null || !Array.isArray((value as StepInput).calls)) return false;
  return (value as StepInput).calls.every(
    (call) => typeof call === 'object' && call !== null && typeof call.id === 'string' && typeof call.name === 'string',
  );
}

/**
 * Builds one attempt's host for `session`: the factory's host with durable
 * approvals and the durable `tools/execute` tap and, with `logDir`, the
 * session log's sink (see `openDurableSessionLog`). Throws `SESSION_ID_MISMATCH`
 * when the factory built a host for another session. Close the result when
 * the attempt ends (`closing` runs the handler and closes it).
 */
export async function openSessionHost(session: string, durable: Durable, options: SessionHostOptions): Promise<OpenedSession> {
  const log = options.logDir === undefined ? undefined : await openDurableSessionLog(sessionLogPath(options.logDir, session), session);
  const close = async () => {
    await log?.close();
  };
  try {
    const hostOptions = { ...durableCreateHostOptions(durable, options), session, ...(log === undefined ? {} : { sink: log }) };
    const host = await options.createHost({ session, hostOptions, durable });
    if (host.session !== session) {
      throw new DurableError(DurableErrorCode.SESSION_ID_MISMATCH, `the host's session is "${host.session}", the engine runs "${session}"`);
    }
    attachDurable(host, durable, options);
    return { session, host, durable, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Runs `fn` on an opened session and closes it after, also when `fn` throws. */
export async function closing<T>(opened: OpenedSession, fn: (run: SessionRun) => Promise<T>): Promise<T> {
  try {
    return await fn(opened);
  } finally {
    await opened.close();
  }
}
