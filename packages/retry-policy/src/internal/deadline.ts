/**
 * Reads the deadline an outer tap (the timeout policy) put on the signal it
 * passed inward: `Symbol.for('@deepseek-ai/dsh/deadline')`, a time on the
 * `performance.now()` clock. The protocol, not a dependency, links the two.
 */
const deadlineSymbol = Symbol.for('@deepseek-ai/dsh/deadline');

/** The call's deadline on the `performance.now()` clock, if an outer tap set one. */
export function deadlineOf(signal: AbortSignal): number | undefined {
  const value = (signal as AbortSignal & { [deadlineSymbol]?: unknown })[deadlineSymbol];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
