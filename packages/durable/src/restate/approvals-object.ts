import type { JsonValue } from '@deepseek-ai/dsh-core';
import * as restate from '@restatedev/restate-sdk';
import type { AnswerReceipt } from '../durable-approval.js';

type ApprovalState = { awakeable: string; answer: JsonValue; delivered: boolean };

/**
 * One pending question, keyed `<session>:approval <call id>`: the session
 * registers the awakeable it waits on, a person posts the answer; whichever
 * comes second resolves it. The first answer is final, so a deny cannot be
 * overturned by a later allow (nor by a restart, which replays the wait).
 */
export const approvalsObject = restate.object({
  name: 'dsh-approvals',
  handlers: {
    register: async (ctx: restate.ObjectContext<ApprovalState>, awakeable: string): Promise<void> => {
      ctx.set('awakeable', awakeable);
      const answer = await ctx.get('answer');
      if (answer !== null && (await ctx.get('delivered')) !== true) {
        ctx.resolveAwakeable(awakeable, answer);
        ctx.set('delivered', true);
      }
    },
    answer: async (ctx: restate.ObjectContext<ApprovalState>, answer: JsonValue): Promise<AnswerReceipt> => {
      if ((await ctx.get('answer')) !== null) return { status: 'already-answered' };
      ctx.set('answer', answer);
      const awakeable = await ctx.get('awakeable');
      if (awakeable === null) return { status: 'kept' };
      ctx.resolveAwakeable(awakeable, answer);
      ctx.set('delivered', true);
      return { status: 'delivered' };
    },
  },
});
