import { isPromiseLike, type MaybePromise, withDeadline } from './deadline.js';

/** What a series does with each tap's answer: `true` to go on to the next tap. */
export interface SeriesSteps<T, R> {
  call(tap: T): R | PromiseLike<R>;
  answer(tap: T, value: R): boolean;
  /** A throw, a rejection, or (with `timedOutMs`) a deadline passed. */
  fail(tap: T, error: unknown, timedOutMs?: number): boolean;
  timeoutOf(tap: T): number;
}

/**
 * Runs taps one after another, synchronously for as long as they answer
 * synchronously (a tick per no-op tap adds up on the per-call path), and
 * asynchronously, each under its deadline, from the first promise on.
 */
export function runSeries<T, R>(taps: readonly T[], steps: SeriesSteps<T, R>): MaybePromise<void> {
  for (let index = 0; index < taps.length; index++) {
    const tap = taps[index] as T;
    let value: R | PromiseLike<R>;
    try {
      value = steps.call(tap);
    } catch (error) {
      if (!steps.fail(tap, error)) return;
      continue;
    }
    if (isPromiseLike(value)) return finishAsync(taps, steps, index, value);
    if (!steps.answer(tap, value)) return;
  }
}

async function finishAsync<T, R>(taps: readonly T[], steps: SeriesSteps<T, R>, from: number, first: PromiseLike<R>): Promise<void> {
  let pending: R | PromiseLike<R> = first;
  for (let index = from; index < taps.length; index++) {
    const tap = taps[index] as T;
    try {
      if (index !== from) pending = steps.call(tap);
      let value: R;
      if (isPromiseLike(pending)) {
        const timeout = steps.timeoutOf(tap);
        const settled = await withDeadline(pending, timeout);
        if (settled.timedOut) {
          if (!steps.fail(tap, new Error(`did not answer within ${timeout} ms`), timeout)) return;
          continue;
        }
        value = settled.value;
      } else {
        value = pending;
      }
      if (!steps.answer(tap, value)) return;
    } catch (error) {
      if (!steps.fail(tap, error)) return;
    }
  }
}
