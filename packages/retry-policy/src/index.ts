/**
 * Retries around dsh tool dispatch: idempotent tools only, retryable codes
 * only, exponential backoff with jitter, inside the call's deadline, each
 * attempt logged as a `retry/attempt` session event.
 *
 * @packageDocumentation
 */
export { type Backoff, backoffDelay } from './backoff.js';
export { defaultRetryableCodes, RetryPolicyCode } from './errors.js';
export { type RetryAttemptData, retryAttemptEvent } from './events.js';
export {
  backoffSchema,
  parseRetryPolicyOptions,
  type ResolvedRetryPolicyOptions,
  type RetryPolicyOptions,
  retryPolicyOptionsSchema,
} from './options.js';
export { retryPolicy, retryPolicyName } from './plugin.js';
