import { z } from '@deepseek-ai/dsh-core';

/** The event type code mode adds to the session log. */
export const CALL_CANCELLED_EVENT = 'code-mode/call-cancelled';

/**
 * `code-mode/call-cancelled`: a program's tool call that never started,
 * because the program ended without awaiting it (`program-ended`), the run
 * stopped first (`run-stopped`: a deadline, the memory cap, an error), or
 * it came after the program had ended (`after-end`). Calls that started get
 * their own `tool/call` and `tool/result` events instead.
 */
export const callCancelledEvent = z.object({
  subCall: z.string(),
  name: z.string(),
  index: z.number().int().nonnegative(),
  reason: z.enum(['program-ended', 'run-stopped', 'after-end']),
});

declare module '@deepseek-ai/dsh-core' {
  interface EventDataMap {
    'code-mode/call-cancelled': z.infer<typeof callCancelledEvent>;
  }
}
