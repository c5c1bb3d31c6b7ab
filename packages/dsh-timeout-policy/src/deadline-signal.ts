/**
 * The deadline protocol between around-dispatch taps. A tap that imposes a
 * deadline sets this symbol on the signal it passes inward; a tap inside it
 * (a retry policy) reads it to stay within the call's remaining time. The
 * value is a time on the `performance.now()` clock. `Symbol.for` makes the
 * key the same in every package that uses it, with no shared dependency.
 */
export const deadlineSymbol: unique symbol = Symbol.for('@deepseek-ai/dsh/deadline');

/**
 * When the call that owns `signal` must have settled, on the
 * `performance.now()` clock; `undefined` when no tap outside set a deadline.
 */
export function deadlineOf(signal: AbortSignal): number | undefined {
  const value = (signal as AbortSignal & { [deadlineSymbol]?: unknown })[deadlineSymbol];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Milliseconds left before the deadline carried by `signal` (zero or more); `undefined` when there is none. */
export function remainingMs(signal: AbortSignal): number | undefined {
  const deadline = deadlineOf(signal);
  return deadline === undefined ? undefined : Math.max(0, deadline - performance.now());
}

/** Marks `signal` with a deadline, for taps inside. Exported so other deadline taps can speak the same protocol. */
export function markDeadline(signal: AbortSignal, at: number): void {
  // A plain assignment: defineProperty on a signal costs more than the rest of the mark.
  (signal as AbortSignal & { [deadlineSymbol]?: number })[deadlineSymbol] = at;
}
