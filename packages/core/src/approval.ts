import type { Args } from './hooks.js';
import type { CallIdentity } from './outcome.js';

/** An answer to one approval request. `allowed-once` covers that call only. */
export type ApprovalAnswer = 'allowed-once' | 'rejected' | 'cancelled' | 'unavailable';

/** An answer with a message for the model (why the user said no, say). */
export interface ApprovalReply {
  readonly answer: ApprovalAnswer;
  readonly message?: string;
  /** The id of a remembered grant this answer created (the user chose "always"): logged with the answer. */
  readonly grant?: string;
}

/** What the user is asked about: the call, its effective arguments, and why it was asked. */
export interface ApprovalRequest {
  readonly call: CallIdentity;
  readonly tool: { readonly name: string; readonly description: string };
  readonly args: Args;
  readonly reason?: string;
  /** Aborted when the request's deadline passes or the step is cancelled. */
  readonly signal: AbortSignal;
}

/**
 * Asks the user. Called at most once per call that a pre-execute tap left at
 * `ask`. Throwing, or not answering by the host's `approvalTimeoutMs`, denies.
 *
 * The promise may hold any string so that `async () => 'allowed-once'` type-checks:
 * TypeScript widens a literal returned from an `async` function whose expected
 * type is not a plain promise. An answer that is not an {@link ApprovalAnswer}
 * denies the call; a synchronous answer is checked by the compiler as well.
 */
export type ApprovalProvider = (
  request: ApprovalRequest,
) => ApprovalAnswer | ApprovalReply | Promise<ApprovalAnswer | ApprovalReply | (string & {})>;
