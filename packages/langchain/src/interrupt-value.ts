import { type ApprovalReply, type ApprovalRequest, z } from '@deepseek-ai/dsh-core';
import { LangChainErrorCode } from './errors.js';

/**
 * What `interrupt()` carries when dsh asks a person about a call: the shape
 * of LangChain's `humanInTheLoopMiddleware` request (one action), so a UI
 * written for it works unchanged, plus `dsh` with the call id and the reason.
 */
export interface DshInterruptValue {
  readonly actionRequests: readonly [{ readonly name: string; readonly args: ApprovalRequest['args']; readonly description: string }];
  readonly reviewConfigs: readonly [{ readonly actionName: string; readonly allowedDecisions: readonly ['approve', 'reject'] }];
  readonly dsh: { readonly callId: string; readonly reason: string | undefined };
}

/** The value to resume the graph with (`new Command({ resume })`): `humanInTheLoopMiddleware`'s response, one decision. */
export interface DshResumeValue {
  readonly decisions: readonly [{ readonly type: 'approve' } | { readonly type: 'reject'; readonly message?: string }];
}

const resumeSchema = z.object({
  decisions: z.tuple([
    z.discriminatedUnion('type', [
      z.object({ type: z.literal('approve') }),
      z.object({ type: z.literal('reject'), message: z.string().optional() }),
    ]),
  ]),
});

/** The interrupt value for a dsh approval request. */
export function interruptValue(request: ApprovalRequest): DshInterruptValue {
  const reason = request.reason;
  const description = `dsh asks before running ${request.tool.name}${reason === undefined ? '' : `: ${reason}`}`;
  return {
    actionRequests: [{ name: request.call.name, args: request.args, description }],
    reviewConfigs: [{ actionName: request.call.name, allowedDecisions: ['approve', 'reject'] }],
    dsh: { callId: request.call.id, reason },
  };
}

/**
 * The approval answer for a resume value. Anything but one `approve` or
 * `reject` decision rejects the call (fail closed) with a message that says
 * what was wrong; `edit` is refused because a dsh approval cannot change arguments.
 */
export function replyOf(value: unknown): ApprovalReply {
  const parsed = resumeSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.length ? issue.path.map(String).join('.') : 'resume';
    return {
      answer: 'rejected',
      message: `${LangChainErrorCode.INVALID_RESUME}: ${field}: ${issue?.message ?? 'invalid'}; expected { decisions: [{ type: 'approve' | 'reject' }] }`,
    };
  }
  const [decision] = parsed.data.decisions;
  if (decision.type === 'approve') return { answer: 'allowed-once' };
  return decision.message === undefined ? { answer: 'rejected' } : { answer: 'rejected', message: decision.message };
}
