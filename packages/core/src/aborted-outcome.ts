import { DshError, ErrorCode, messageOf } from './errors.js';
import { errorFromThrown } from './finalise.js';
import { type DispatchOutcome, errorOutcome, type OutcomeError } from './outcome.js';

/** The outcome of a call stopped by an abort: the reason's code when it has one (a timeout's), else `ABORTED`. */
export function abortedOutcome(reason: unknown): DispatchOutcome {
  const info: OutcomeError = DshError.isInstance(reason)
    ? errorFromThrown(reason)
    : { code: ErrorCode.ABORTED, message: `the call was aborted${reason === undefined ? '' : `: ${messageOf(reason)}`}` };
  return errorOutcome('execute', info.code, info.message, { data: info.data });
}
