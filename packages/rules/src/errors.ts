import { DshError } from '@deepseek-ai/dsh-core';

/** Stable error codes of the rules package; each is listed in the README. */
export const RulesErrorCode = {
  /** A permission rule cannot be parsed; the message quotes the rule and says what is wrong. */
  INVALID_RULE: 'INVALID_RULE',
} as const;

/** One of the rules package's stable error codes. */
export type RulesErrorCode = (typeof RulesErrorCode)[keyof typeof RulesErrorCode];

/** An error of the rules package: a `DshError` with one of {@link RulesErrorCode}'s codes and the rule it is about. */
export class RulesError extends DshError {
  /** The rule text the error is about. */
  readonly rule: string;

  constructor(code: RulesErrorCode, message: string, options: { rule: string; cause?: unknown }) {
    super(code, message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RulesError';
    this.rule = options.rule;
  }
}
