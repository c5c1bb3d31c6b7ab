import type { ApprovalAnswer, ApprovalProvider, ApprovalReply } from '@deepseek-ai/dsh-core';
import type { Durable } from './durable.js';
import { DurableError, DurableErrorCode } from './errors.js';

/** The answers a person may post for a call waiting on approval. */
export const approvalAnswers: readonly ApprovalAnswer[] = ['allowed-once', 'rejected', 'cancelled', 'unavailable'];

/** The key a call's approval waits on: `approval <call id>`. */
export function approvalKey(callId: string): string {
  return `approval ${callId}`;
}

/** Whether `value` is an answer a person may post: `{ answer, message? }` with a known answer. */
export function isApprovalReply(value: unknown): value is ApprovalReply {
  if (typeof value !== 'object' || value === null) return false;
  const { answer, message } = value as { answer?: unknown; message?: unknown };
  return approvalAnswers.includes(answer as ApprovalAnswer) && (message === undefined || typeof message === 'string');
}

/** What answering a call's approval reports: whether this answer is the one that counts. */
export interface AnswerReceipt {
  /**
   * `delivered`: the call waits for it now; `kept`: the call has not asked
   * yet (or its worker is down) and will get it when it does;
   * `already-answered`: an earlier answer (or the wait's deadline) stands.
   */
  readonly status: 'delivered' | 'kept' | 'already-answered';
}

/** A person's word on one call: `allow`/`deny` as a CLI says it, or a core approval answer. */
export type ApprovalWord = 'allow' | 'deny' | ApprovalAnswer;

/** The reply `word` (and `message`) stand for; throws `INVALID_INPUT` for a word that is no answer. */
export function approvalReplyOf(word: ApprovalWord, message?: string): ApprovalReply {
  const answer = word === 'allow' ? 'allowed-once' : word === 'deny' ? 'rejected' : word;
  const reply = message === undefined ? { answer } : { answer, message };
  if (!isApprovalReply(reply)) {
    throw new DurableError(
      DurableErrorCode.INVALID_INPUT,
      `answer must be allow, deny, allowed-once, rejected, cancelled or unavailable, not "${String(word)}"`,
    );
  }
  return reply;
}

/**
 * An approval provider that turns each `ask` into a durable wait on
 * {@link approvalKey}: the question outlives the process, an answer posted
 * while no worker runs is kept, and once given (a deny included) the answer
 * is replayed unchanged on every later attempt. No answer within
 * `timeoutMs` is `unavailable`, which core turns into a deny.
 */
export function durableApproval(durable: Durable, timeoutMs: number): ApprovalProvider {
  return async (request) => {
    const result = await durable.wait<ApprovalReply>(approvalKey(request.call.id), timeoutMs);
    if (result.status === 'timeout') return { answer: 'unavailable', message: `no answer within ${timeoutMs} ms` };
    // A malformed posted value cannot allow anything: core denies what is not an answer.
    return isApprovalReply(result.value) ? result.value : { answer: 'unavailable', message: 'the posted answer was malformed' };
  };
}
