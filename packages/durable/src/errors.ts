import { ErrorCode } from '@deepseek-ai/dsh-core';

/** Stable codes of the errors this package throws, and of the outcome it writes for an interrupted call. */
export const DurableErrorCode = {
  /** The options given to a factory are malformed; the message names the field. */
  INVALID_OPTIONS: 'INVALID_OPTIONS',
  /** The engine could not be reached (connection refused, DNS, reset): nothing was submitted. */
  ENGINE_UNREACHABLE: 'ENGINE_UNREACHABLE',
  /** The engine answered with an error the binding does not know (HTTP status and body in the message). */
  ENGINE_ERROR: 'ENGINE_ERROR',
  /** A session id already bound to one host configuration was used by another (`hostId` differs). */
  SESSION_HOST_MISMATCH: 'SESSION_HOST_MISMATCH',
  /** The host the factory built carries another session id than the one the engine runs. */
  SESSION_ID_MISMATCH: 'SESSION_ID_MISMATCH',
  /** The replayed journal does not match what the run asks for now (the code changed between attempts). */
  JOURNAL_MISMATCH: 'JOURNAL_MISMATCH',
  /**
   * (Restate) A call asked for approval under a call id that an earlier call of the session
   * used, whose question is closed: the call is denied at once with this code in its reason.
   */
  CALL_ID_REUSED: 'CALL_ID_REUSED',
  /** The input of a session handler or an approval is malformed. */
  INVALID_INPUT: 'INVALID_INPUT',
  /** A non-idempotent tool body started in an earlier attempt and never finished: its effect is unknown (core's code). */
  TOOL_INTERRUPTED: ErrorCode.TOOL_INTERRUPTED,
} as const;

/** One of {@link DurableErrorCode}'s values. */
export type DurableErrorCode = (typeof DurableErrorCode)[keyof typeof DurableErrorCode];

const codes = new Set<string>(Object.values(DurableErrorCode));

/** Whether `value` is one of this package's codes (a code carried back by an engine, say). */
export function isDurableErrorCode(value: unknown): value is DurableErrorCode {
  return typeof value === 'string' && codes.has(value);
}

const marker = Symbol.for('@deepseek-ai/dsh-durable/error');

/** An error of this package, with a stable `code` (see {@link DurableErrorCode}). */
export class DurableError extends Error {
  readonly code: DurableErrorCode;
  readonly [marker] = true;

  constructor(code: DurableErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DurableError';
    this.code = code;
  }

  /** Whether `value` is a `DurableError`, also across copies of this package. */
  static isInstance(value: unknown): value is DurableError {
    return typeof value === 'object' && value !== null && (value as { [marker]?: unknown })[marker] === true;
  }
}
