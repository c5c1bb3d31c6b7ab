import { abortedOutcome } from './aborted-outcome.js';
import { DshError, ErrorCode } from './errors.js';
import { followSignal } from './internal/signal-followers.js';
import type { DispatchOutcome } from './outcome.js';

/** Something that acts when a cancellation aborts: a child cancellation, a race. */
export interface AbortFollower {
  abort(reason: unknown): void;
}

/** How a cancellation behaves besides being aborted by hand. */
export interface CancellationOptions {
  /**
   * When it aborts by itself, in `performance.now()` time. Core enforces it
   * while the chain it was passed to (`next({ cancellation })`) runs, and
   * inner taps read it (a retry never waits past it).
   */
  readonly deadline?: number;
  /** An outer cancellation to follow: when it aborts, this one aborts with the same reason. */
  readonly parent?: Cancellation;
  /**
   * Once aborted, how long the chain it was passed to may take to settle
   * before the call settles without it. Default: the host's `abortGraceMs`.
   */
  readonly graceMs?: number;
}

/**
 * A call's cancellation: cheap until someone needs an AbortSignal. Most calls
 * finish without a body reading `ctx.signal`, and an AbortController plus its
 * event listeners cost more than the rest of a no-op call.
 *
 * An execute tap that needs a cancellation of its own (a timeout) passes one
 * inward with `next({ cancellation })`, usually with `parent: ctx.cancellation`
 * and a `deadline`. Core then races the rest of the chain against it: at the
 * deadline it aborts (with {@link Cancellation.deadlineReason}), and once
 * aborted the call settles with {@link Cancellation.outcomeOnAbort} when the
 * chain settles or the grace period ends, whichever is first. Subclass to
 * give both your own error; one object per call is all a timeout costs.
 */
export class Cancellation {
  /** When this cancellation will abort on its own, in `performance.now()` time, if it has a deadline. */
  readonly deadline: number | undefined;
  /** How long the chain under it may take to settle once aborted; the host's default when undefined. */
  readonly graceMs: number | undefined;
  #controller: AbortController | undefined;
  #aborted = false;
  #expired = false;
  #reason: unknown;
  #listeners: (() => void)[] | undefined;
  /** Followers that abort with it: child cancellations and core's races (objects, so following needs no closure). */
  #followers: AbortFollower[] | undefined;

  constructor(options?: CancellationOptions) {
    this.deadline = options?.deadline;
    this.graceMs = options?.graceMs;
    const parent = options?.parent;
    if (parent === undefined) return;
    // A child list instead of an `onAbort` closure: following costs one array slot.
    if (parent.#aborted) this.abort(parent.#reason);
    else parent.follow(this);
  }

  /** A cancellation that aborts when `signal` does (for taps that were handed a plain AbortSignal). */
  static fromSignal(signal: AbortSignal): Cancellation {
    const cancellation = new Cancellation();
    followSignal(signal, cancellation);
    return cancellation;
  }

  /** The signal, made on first use (already aborted if this cancellation is). */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  get aborted(): boolean {
    return this.#aborted;
  }

  /** True when it aborted because its deadline passed (not by hand, nor by its parent). */
  get expired(): boolean {
    return this.#expired;
  }

  /** Why it was aborted; `undefined` until then. */
  get reason(): unknown {
    return this.#reason;
  }

  /** Aborts once; later calls do nothing. Children abort with the same reason. */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const listeners = this.#listeners;
    const followers = this.#followers;
    this.#listeners = undefined;
    this.#followers = undefined;
    for (const listener of listeners ?? []) listener();
    for (const follower of followers ?? []) follower.abort(reason);
  }

  /**
   * Tells `follower` once, on abort (at once if already aborted). Unlike
   * `onAbort` there is no way to stop: for followers that live no longer
   * than this cancellation (a child, a race around one call).
   */
  follow(follower: AbortFollower): void {
    if (this.#aborted) {
      follower.abort(this.#reason);
      return;
    }
    this.#followers ??= [];
    this.#followers.push(follower);
  }

  /** Aborts as the deadline passing does: `expired` becomes true and the reason is {@link Cancellation.deadlineReason}. */
  expire(): void {
    if (this.#aborted) return;
    this.#expired = true;
    this.abort(this.deadlineReason());
  }

  /** Calls `listener` once on abort (at once if already aborted); returns the way to stop listening. */
  onAbort(listener: () => void): () => void {
    if (this.#aborted) {
      listener();
      return () => undefined;
    }
    this.#listeners ??= [];
    this.#listeners.push(listener);
    return () => {
      const index = this.#listeners?.indexOf(listener) ?? -1;
      if (index !== -1) this.#listeners?.splice(index, 1);
    };
  }

  /** The reason it aborts with when its deadline passes. Default: a `TOOL_TIMEOUT` error. */
  deadlineReason(): unknown {
    return new DshError(ErrorCode.TOOL_TIMEOUT, 'the call passed its deadline', { data: { deadline: this.deadline ?? null } });
  }

  /**
   * What the call answers once this cancellation has aborted: `settled` is
   * what the chain under it answered within the grace period, `undefined`
   * when it did not answer in time. Called once per race, by core. Default:
   * the chain's own answer, or an error built from the abort reason.
   */
  outcomeOnAbort(settled: DispatchOutcome | undefined): DispatchOutcome {
    return settled ?? abortedOutcome(this.#reason);
  }
}
