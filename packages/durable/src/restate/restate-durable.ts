import { randomUUID } from 'node:crypto';
import * as restate from '@restatedev/restate-sdk';
import type { Durable, WaitResult } from '../durable.js';
import { approvalsObject } from './approvals-object.js';

/**
 * A {@link Durable} over one Restate invocation of a session's virtual
 * object. Steps are `ctx.run` (one journal entry each), a wait is an
 * awakeable whose id is handed to the `dsh-approvals` object under
 * `<session>:<key>` (so `approve` finds it by session and call id), with a
 * durable timer as its deadline; sleep, clock and ids are Restate's own.
 */
export function restateDurable(ctx: restate.ObjectContext, session: string): Durable {
  return {
    // Not journaled on purpose: a fresh id per attempt (see `Durable.attempt`).
    attempt: randomUUID(),
    step: <T>(name: string, fn: () => Promise<T>) => ctx.run<T>(name, fn),
    wait: async <T>(key: string, timeoutMs: number): Promise<WaitResult<T>> => {
      const awakeable = ctx.awakeable<T>();
      ctx.objectSendClient(approvalsObject, `${session}:${key}`).register(awakeable.id);
      try {
        return { status: 'resolved', value: await awakeable.promise.orTimeout(timeoutMs) };
      } catch (error) {
        if (error instanceof restate.TimeoutError) return { status: 'timeout' };
        throw error;
      }
    },
    sleep: (ms) => ctx.sleep(ms),
    now: () => ctx.date.now(),
    uuid: async () => ctx.rand.uuidv4(),
  };
}
