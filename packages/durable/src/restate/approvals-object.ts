import * as restate from '@restatedev/restate-sdk';
import { DurableErrorCode } from '../errors.js';
import { type AnswerOutcome, approvalsObjectName, isDeadlineMarker } from './approval-names.js';

type ApprovalState = { awakeable: string; answer: unknown; delivered: boolean };

// Restate keeps an idempotent invocation (and so the first answer's `PreviouslyAccepted`) this
// long; far beyond the 24 h default deadline. After it, a later answer still finds the stored
// answer, but only a running worker can say so.
const answerRetention = { days: 30 };

function reusedCallIdMessage(key: string): string {
  const at = key.lastIndexOf(':approval ');
  const [session, call] = at < 0 ? [key, '?'] : [key.slice(0, at), key.slice(at + ':approval '.length)];
  return (
    `${DurableErrorCode.CALL_ID_REUSED}: call id "${call}" already asked for approval in session "${session}" and that ` +
    'question is closed (answered, or past its deadline): give every call of a session its own id'
  );
}

/**
 * The approvals object of the session object named `sessionObjectName`
 * (`dsh-approvals` for the default `dsh-session`, else `<name>-approvals`):
 * bind it beside that session object. One question per key,
 * `<session>:approval <call id>`: the session registers
 * the awakeable it waits on, a person posts the answer; whichever comes
 * second resolves it. The first value posted under the answer idempotency key
 * stands: a person's answer, or the session's deadline marker once its wait
 * timed out. So a deny cannot be overturned by a later allow, nor an answer
 * after the deadline be reported as taken. A second call asking under a
 * closed question (a call id used twice in one session) is refused at once
 * with `CALL_ID_REUSED` (core denies it), instead of waiting out its deadline.
 */
export function approvalsObjectFor(sessionObjectName?: string) {
  return restate.object({
    name: approvalsObjectName(sessionObjectName),
    handlers: {
      register: async (ctx: restate.ObjectContext<ApprovalState>, awakeable: string): Promise<void> => {
        const asked = await ctx.get('awakeable');
        if (asked !== null && asked !== awakeable && (await ctx.get('delivered')) === true) {
          // Another call with this id asked before and its question is closed: the first answer
          // stands for good, so this one could only wait out its deadline. Refuse it now.
          ctx.rejectAwakeable(awakeable, reusedCallIdMessage(ctx.key));
          return;
        }
        ctx.set('awakeable', awakeable);
        const answer = await ctx.get('answer');
        if (answer !== null && (await ctx.get('delivered')) !== true) {
          ctx.resolveAwakeable(awakeable, answer);
          ctx.set('delivered', true);
        }
      },
      answer: async (ctx: restate.ObjectContext<ApprovalState>, answer: unknown): Promise<AnswerOutcome> => {
        const standing = await ctx.get('answer');
        if (standing !== null) return { status: 'already-answered', stands: standing };
        ctx.set('answer', answer);
        // The deadline closes the question; the session that posted it waits no more.
        if (isDeadlineMarker(answer)) {
          ctx.set('delivered', true);
          return { status: 'delivered', stands: answer };
        }
        const awakeable = await ctx.get('awakeable');
        if (awakeable === null) return { status: 'kept', stands: answer };
        ctx.resolveAwakeable(awakeable, answer);
        ctx.set('delivered', true);
        return { status: 'delivered', stands: answer };
      },
    },
    options: { idempotencyRetention: answerRetention },
  });
}

/** The approvals object of the default session object (`dsh-session`): `dsh-approvals`. Bind it beside the session object. */
export const approvalsObject = approvalsObjectFor();
