import { z } from '@deepseek-ai/dsh-core';

/** The event type code mode logs for each call that never started. */
export const CALL_CANCELLED_EVENT = 'code-mode/call-cancelled';

/** The event type code mode logs once per run for the events it did not log past a per-run cap. */
export const EVENTS_DROPPED_EVENT = 'code-mode/events-dropped';

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

/**
 * `code-mode/events-dropped`: logged once at the end of a run that had more
 * `code-mode/call-cancelled` events than `maxCancelledEvents`. The first ones
 * were logged; `dropped` counts the rest, and `reasons` splits them by reason.
 */
export const eventsDroppedEvent = z.object({
  type: z.literal('code-mode/call-cancelled'),
  dropped: z.number().int().positive(),
  reasons: z.object({
    'program-ended': z.number().int().nonnegative(),
    'run-stopped': z.number().int().nonnegative(),
    'after-end': z.number().int().nonnegative(),
  }),
});

declare module '@deepseek-ai/dsh-core' {
  interface EventDataMap {
    'code-mode/call-cancelled': z.infer<typeof callCancelledEvent>;
    'code-mode/events-dropped': z.infer<typeof eventsDroppedEvent>;
  }
}
