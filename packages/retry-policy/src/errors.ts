/** Stable codes of the retry policy: thrown, in outcomes, or in diagnostics. */
export const RetryPolicyCode = {
  /** The factory was given options it cannot use (thrown by `retryPolicy`). */
  INVALID_OPTIONS: 'INVALID_OPTIONS',
  /** The call was cancelled while it waited to retry (outcome error code, unless the reason carries its own). */
  ABORTED: 'ABORTED',
  /** Diagnostic: a `retry/attempt` event could not be logged, so the policy stopped retrying that call. */
  EVENT_FAILED: 'RETRY_EVENT_FAILED',
} as const;

/** One of the retry policy's stable codes. */
export type RetryPolicyCode = (typeof RetryPolicyCode)[keyof typeof RetryPolicyCode];

/**
 * Error codes retried by default: transient network and resource failures as
 * Node and undici report them. A tool opts a failure in by throwing
 * `new ToolError('ECONNRESET', …)` (or any code listed in `retryOn`).
 */
export const defaultRetryableCodes: readonly string[] = Object.freeze([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EBUSY',
  'EAGAIN',
  'EMFILE',
  'ENFILE',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
]);
