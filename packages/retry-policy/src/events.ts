import { z } from '@deepseek-ai/dsh-core';

/**
 * `retry/attempt`: one attempt of an eligible call failed with a retryable
 * code, and what the policy did next (`retry` after `delayMs`, or why it
 * stopped). A call that succeeds at once logs none; a call retried twice
 * logs two (or three, when the last attempt fails too).
 */
export const retryAttemptEvent = z.object({
  /** The attempt that failed, from 1. */
  attempt: z.number().int().positive(),
  maxAttempts: z.number().int().positive(),
  code: z.string(),
  /** The failure's message, cut to 500 characters. */
  message: z.string(),
  /** How long the failed attempt took. */
  durationMs: z.number().nonnegative(),
  /** `retry`, or why not: attempts used up, no time left before the deadline, or the call was aborted. */
  decision: z.enum(['retry', 'exhausted', 'deadline', 'aborted']),
  /** The wait before the next attempt, when `decision` is `retry`. */
  delayMs: z.number().int().nonnegative().optional(),
});

/** The data of a `retry/attempt` event. */
export type RetryAttemptData = z.infer<typeof retryAttemptEvent>;

declare module '@deepseek-ai/dsh-core' {
  interface EventDataMap {
    'retry/attempt': RetryAttemptData;
  }
}
