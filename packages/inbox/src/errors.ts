/** Stable codes of the inbox's errors; the README lists each with its HTTP status. */
export const InboxErrorCode = {
  INVALID_OPTIONS: 'INBOX_INVALID_OPTIONS',
  UNSAFE_BIND: 'INBOX_UNSAFE_BIND',
  UNAUTHORIZED: 'INBOX_UNAUTHORIZED',
  FORBIDDEN: 'INBOX_FORBIDDEN',
  CROSS_ORIGIN: 'INBOX_CROSS_ORIGIN',
  NOT_FOUND: 'INBOX_NOT_FOUND',
  UNKNOWN_SESSION: 'INBOX_UNKNOWN_SESSION',
  UNKNOWN_CALL: 'INBOX_UNKNOWN_CALL',
  ALREADY_ANSWERED: 'INBOX_ALREADY_ANSWERED',
  NOT_WAITING: 'INBOX_NOT_WAITING',
  NOT_ANSWERABLE: 'INBOX_NOT_ANSWERABLE',
  CANNOT_REMEMBER: 'INBOX_CANNOT_REMEMBER',
  BAD_REQUEST: 'INBOX_BAD_REQUEST',
  BODY_TOO_LARGE: 'INBOX_BODY_TOO_LARGE',
  TOO_MANY_STREAMS: 'INBOX_TOO_MANY_STREAMS',
  ALREADY_ATTACHED: 'INBOX_ALREADY_ATTACHED',
  LOG_PROBLEM: 'INBOX_LOG_PROBLEM',
} as const;

/** One of {@link InboxErrorCode}'s values. */
export type InboxErrorCode = (typeof InboxErrorCode)[keyof typeof InboxErrorCode];

const marker = Symbol.for('@deepseek-ai/dsh-inbox/error');

/** An error of the inbox: a stable `code`, and the HTTP status it answers with. */
export class InboxError extends Error {
  readonly code: InboxErrorCode;
  readonly status: number;
  readonly data: Readonly<Record<string, unknown>> | undefined;
  readonly [marker] = true;

  constructor(code: InboxErrorCode, message: string, options: { status?: number; data?: Record<string, unknown> } = {}) {
    super(message);
    this.name = 'InboxError';
    this.code = code;
    this.status = options.status ?? 400;
    this.data = options.data;
  }

  /** True for an {@link InboxError}, even one from another copy of this package. */
  static isInstance(value: unknown): value is InboxError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}
