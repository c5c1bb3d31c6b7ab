import { randomUUID } from 'node:crypto';
import * as restate from '@restatedev/restate-sdk';
import type { Durable, WaitResult } from '../durable.js';
import { answerIdempotencyKey, deadlineMarker, isDeadlineMarker } from './approval-names.js';
import { approvalsObjectFor } from './approvals-object.js';

/**
 * A {@link Durable} over one Restate invocation of a session's virtual
 * object. Steps are `ctx.run` (one journal entry each), a wait is an
 * awakeable whose id is handed to the session object's approvals object
 * (`dsh-approvals` for the default `dsh-session`) under `<session>:<key>`, so
 * `approve` finds it by session and call id, with a durable timer as its
 * deadline; sleep, clock and ids are Restate's own.
 */
export function restateDurable(ctx: restate.ObjectContext, session: string, sessionObjectName?: string): Durable {
  const approvals = approvalsObjectFor(sessionObjectName);
  return {
    // Not journaled on purpose: a fresh id per attempt (see `Durable.attempt`).
    attempt: randomUUID(),
    step: <T>(name: string, fn: () => Promise<T>) => ctx.run<T>(name, fn),
    wait: async <T>(key: string, timeoutMs: number): Promise<WaitResult<T>> => {
      const question = ctx.objectClient(approvals, `${session}:${key}`);
      const awakeable = ctx.awakeable<T>();
      ctx.objectSendClient(approvals, `${session}:${key}`).register(awakeable.id);
      try {
        return { status: 'resolved', value: await awakeable.promise.orTimeout(timeoutMs) };
      } catch (error) {
        if (!(error instanceof restate.TimeoutError)) throw error;
      }
      // The deadline is posted like an answer, under the same idempotency key: whichever came
      // first stands, so an answer that raced the timer is honoured and a later one refused.
      const { stands } = await question.answer(deadlineMarker, restate.rpc.opts({ idempotencyKey: answerIdempotencyKey }));
      return isDeadlineMarker(stands) ? { status: 'timeout' } : { status: 'resolved', value: stands as T };
    },
    sleep: (ms) => ctx.sleep(ms),
    now: () => ctx.date.now(),
    uuid: async () => ctx.rand.uuidv4(),
  };
}
