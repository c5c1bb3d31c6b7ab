/** How a durable wait ended: the value it was given, or the deadline. */
export type WaitResult<T> = { readonly status: 'resolved'; readonly value: T } | { readonly status: 'timeout' };

/**
 * The engine-neutral durable seam: what dsh needs from a durable execution
 * engine, and nothing more. A binding (Restate, DBOS, Temporal, an
 * in-process journal) implements it for one session's run.
 *
 * The split every engine asks for: work that touches the world goes in a
 * {@link Durable.step}; waits (a person's approval, a sleep) belong to the
 * run itself and never sit inside a step.
 */
export interface Durable {
  /**
   * Runs `fn` at least once and journals its value: on replay the journaled
   * value is returned and `fn` does not run. `fn` must return a JSON value and should
   * not throw (return failures as data); a throw is journaled as a failure
   * by engines that can, retried by others.
   */
  step<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /**
   * Waits durably for the value some other party posts under `key` (an
   * approval answer), for at most `timeoutMs`. The wait survives a restart of
   * the process; a value posted while no process runs is kept.
   */
  wait<T>(key: string, timeoutMs: number): Promise<WaitResult<T>>;
  /** Sleeps durably: a restart does not start the sleep over. */
  sleep(ms: number): Promise<void>;
  /** The current time in ms since the epoch, replayed unchanged. */
  now(): Promise<number>;
  /** A random UUID, replayed unchanged. */
  uuid(): Promise<string>;
  /**
   * An id unique to this attempt of the run (a fresh one on every replay, not
   * journaled). The execute tap uses it to tell "I started this body" from
   * "an earlier attempt started it".
   */
  readonly attempt: string;
}

/** The idempotency key of a call: `<session>:<call id>`, the same on every attempt of the call. */
export function idempotencyKey(session: string, callId: string): string {
  return `${session}:${callId}`;
}
