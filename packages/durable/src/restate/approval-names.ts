// What the approvals object, the session's wait and the SDK-free client must agree on. No
// Restate SDK here: `@deepseek-ai/dsh-durable/restate/client` imports this file.

/** The session object's name when its options give none. */
export const defaultSessionObjectName = 'dsh-session';

/**
 * The approvals object that belongs to the session object `sessionObjectName`:
 * `dsh-approvals` for the default `dsh-session`, else `<name>-approvals`. One
 * per session object, so a deployment of another session object cannot take
 * over the questions of this one.
 */
export function approvalsObjectName(sessionObjectName: string = defaultSessionObjectName): string {
  return sessionObjectName === defaultSessionObjectName ? 'dsh-approvals' : `${sessionObjectName}-approvals`;
}

/**
 * The idempotency key every answer to one question is sent with. Restate
 * accepts the first invocation under it and tells every later sender
 * `PreviouslyAccepted`, without a worker: that is what makes the first
 * answer (or the deadline) final, and `approve` answer at once.
 */
export const answerIdempotencyKey = 'dsh-answer';

/** What the session posts in place of an answer when the wait's deadline passed. */
export interface DeadlineMarker {
  readonly deadline: true;
}

/** The value the session posts when its wait times out: it takes the question's answer slot. */
export const deadlineMarker: DeadlineMarker = { deadline: true };

/** Whether `value` is the session's {@link deadlineMarker}. */
export function isDeadlineMarker(value: unknown): value is DeadlineMarker {
  return typeof value === 'object' && value !== null && (value as { deadline?: unknown }).deadline === true;
}

/**
 * What the approvals object's `answer` handler returns: the receipt a person
 * reads, and the value that stands (the first answer, or the deadline), which
 * the waiting session reads after its deadline.
 */
export interface AnswerOutcome {
  readonly status: 'delivered' | 'kept' | 'already-answered';
  readonly stands: unknown;
}
