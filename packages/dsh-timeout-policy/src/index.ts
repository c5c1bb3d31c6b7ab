/**
 * Per-tool deadlines around dsh tool dispatch: abort at the deadline, wait a
 * grace period, then settle with `TOOL_TIMEOUT` even when the tool never does.
 *
 * @packageDocumentation
 */
export { type Deadline, DeadlineResolver, type DeadlineSource } from './deadline.js';
export { TimeoutPolicyCode } from './errors.js';
export {
  parseTimeoutPolicyOptions,
  type ResolvedTimeoutPolicyOptions,
  type TimeoutPolicyOptions,
  timeoutPolicyOptionsSchema,
} from './options.js';
export { timeoutPolicy, timeoutPolicyName } from './plugin.js';
