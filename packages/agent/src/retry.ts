import { z } from '@deepseek-ai/dsh-core';
import type { ModelErrorDetail } from './model-error.js';

/**
 * How `runAgent` retries a failed model request. Only retryable failures
 * are retried (see {@link ModelErrorDetail.retryable}); the wait is the
 * provider's `retry-after` when it gives one, else exponential backoff with
 * jitter. The run's signal ends a wait at once (`stop: 'aborted'`).
 */
export interface RetryOptions {
  /** Attempts per model turn, the first included (default 4; 1 means no retry). */
  readonly maxAttempts?: number;
  /** The first backoff wait, doubled after each failure (default 1000 ms). */
  readonly initialDelayMs?: number;
  /**
   * The longest wait (default 60 000 ms). A `retry-after` longer than this
   * ends the run instead (`error.retryAfterMs` says how long to wait), so a
   * caller can schedule the retry itself rather than hold a process.
   */
  readonly maxDelayMs?: number;
}

/** The retry option schema (checked with the rest of `runAgent`'s options). */
export const retryOptionsSchema = z.union([
  z.literal(false),
  z.strictObject({
    maxAttempts: z.number().int().min(1).optional(),
    initialDelayMs: z.number().int().nonnegative().optional(),
    maxDelayMs: z.number().int().nonnegative().optional(),
  }),
]);

/** The retry policy with its defaults filled in. */
export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
}

/** `runAgent`'s `retry` option as a policy: `false` is one attempt. */
export function retryPolicy(options: RetryOptions | false | undefined): RetryPolicy {
  if (options === false) return { maxAttempts: 1, initialDelayMs: 0, maxDelayMs: 0 };
  return {
    maxAttempts: options?.maxAttempts ?? 4,
    initialDelayMs: options?.initialDelayMs ?? 1000,
    maxDelayMs: options?.maxDelayMs ?? 60_000,
  };
}

/**
 * The wait before attempt `failed + 1`, or `undefined` when there is none:
 * not retryable, out of attempts, or a `retry-after` beyond `maxDelayMs`.
 */
export function retryDelay(
  policy: RetryPolicy,
  failed: number,
  detail: ModelErrorDetail,
  random: () => number = Math.random,
): number | undefined {
  if (!detail.retryable || failed >= policy.maxAttempts) return undefined;
  if (detail.retryAfterMs !== undefined) return detail.retryAfterMs <= policy.maxDelayMs ? detail.retryAfterMs : undefined;
  const ceiling = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (failed - 1));
  // Half fixed, half random: clients that failed together do not come back together.
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Waits `ms`; resolves `false` at once when the signal fires (before or during the wait). */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
