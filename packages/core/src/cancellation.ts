/**
 * A call's cancellation: cheap until someone needs an AbortSignal. Most calls
 * finish without a body reading `ctx.signal`, and an AbortController plus its
 * event listeners cost more than the rest of a no-op call. Execute taps that
 * need a signal of their own (a timeout) pass a child `Cancellation` inward
 * with `next({ cancellation })`; `deadline` tells inner taps when it expires.
 */
export class Cancellation {
  /** When this cancellation will abort on its own, in `performance.now()` time, if it has a deadline. */
  readonly deadline: number | undefined;
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;
  #listeners: (() => void)[] | undefined;

  constructor(options?: { readonly deadline?: number }) {
    this.deadline = options?.deadline;
  }

  /** A cancellation that aborts when `signal` does (for taps that were handed a plain AbortSignal). */
  static fromSignal(signal: AbortSignal): Cancellation {
    const cancellation = new Cancellation();
    if (signal.aborted) cancellation.abort(signal.reason);
    else signal.addEventListener('abort', () => cancellation.abort(signal.reason), { once: true });
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

  /** Why it was aborted; `undefined` until then. */
  get reason(): unknown {
    return this.#reason;
  }

  /** Aborts once; later calls do nothing. */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const listeners = this.#listeners;
    this.#listeners = undefined;
    for (const listener of listeners ?? []) listener();
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
}
