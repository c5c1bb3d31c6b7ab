/** A promise's value, or word that it did not settle in time. */
export type Settled<T> = { readonly timedOut: false; readonly value: T } | { readonly timedOut: true };

/**
 * Waits for `promise` at most `ms` milliseconds. The timer is cleared as soon
 * as the promise settles, and unref'd so it never keeps the process alive.
 * A rejection passes through.
 */
export function withDeadline<T>(promise: PromiseLike<T>, ms: number, signal?: AbortSignal): Promise<Settled<T>> {
  return new Promise<Settled<T>>((resolve, reject) => {
    let done = false;
    const finish = (): boolean => {
      if (done) return false;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      return true;
    };
    const onAbort = (): void => {
      if (finish()) resolve({ timedOut: true });
    };
    const timer = setTimeout(onAbort, ms);
    timer.unref?.();
    // A signal that fired before the wait began (a provider that cancelled the step itself) ends it at once.
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        if (finish()) resolve({ timedOut: false, value });
      },
      (error: unknown) => {
        if (finish()) reject(error);
      },
    );
  });
}

/** True for a value with a callable `then`: something to await. */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function'
  );
}

/** A value now, or later. Stages return plain values when every tap answered synchronously. */
export type MaybePromise<T> = T | Promise<T>;

/** Applies `fn` at once to a plain value, or once a promise settles: no tick is spent on sync taps. */
export function andThen<T, U>(value: MaybePromise<T>, fn: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return isPromiseLike(value) ? (value as Promise<T>).then(fn) : fn(value as T);
}
