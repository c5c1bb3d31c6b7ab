import type { ResolvedRetryPolicyOptions } from './options.js';

/** The backoff settings with defaults filled in. */
export type Backoff = ResolvedRetryPolicyOptions['backoff'];

/**
 * The delay before the attempt after `failedAttempt` (1 for the first
 * failure): exponential, capped at `maxMs`, then jittered. `random` returns
 * a number in [0, 1); values outside are clamped, so a bad source cannot
 * produce a negative or oversized delay.
 */
export function backoffDelay(failedAttempt: number, backoff: Backoff, random: () => number): number {
  const base = Math.min(backoff.maxMs, backoff.initialMs * backoff.multiplier ** (failedAttempt - 1));
  const r = Math.min(1, Math.max(0, Number(random()) || 0));
  switch (backoff.jitter) {
    case 'full':
      return Math.round(base * r);
    case 'equal':
      return Math.round(base / 2 + (base / 2) * r);
    default:
      return Math.round(base);
  }
}
