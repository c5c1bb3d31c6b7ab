/**
 * Stable codes of the timeout policy. `TOOL_TIMEOUT` is core's own code,
 * reused so that every timeout reads the same whoever enforced it; the
 * others name diagnostics (never outcomes).
 */
export const TimeoutPolicyCode = {
  /** The call passed its deadline and was stopped (outcome error code). */
  TOOL_TIMEOUT: 'TOOL_TIMEOUT',
  /** The user or host cancelled the step while the call ran (outcome error code, unless the reason carries its own). */
  ABORTED: 'ABORTED',
  /** The factory was given options it cannot use (thrown by `timeoutPolicy`). */
  INVALID_OPTIONS: 'INVALID_OPTIONS',
  /** Diagnostic: the grace period ended and the body had still not settled; it was abandoned. */
  BODY_ABANDONED: 'TIMEOUT_BODY_ABANDONED',
  /** Diagnostic (recorded by core's race, source `tool:<name>`): an abandoned body settled after all; its result was discarded. */
  LATE_SETTLEMENT: 'LATE_SETTLEMENT',
} as const;

/** One of the timeout policy's stable codes. */
export type TimeoutPolicyCode = (typeof TimeoutPolicyCode)[keyof typeof TimeoutPolicyCode];
