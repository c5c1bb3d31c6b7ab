import { DshError } from '@deepseek-ai/dsh-core';
import { ExitCode } from './exit-codes.js';

/** Stable codes of the errors `dsh` reports. */
export const CliErrorCode = {
  /** Unknown command or flag, a missing or malformed argument. */
  USAGE: 'CLI_USAGE',
  /** The configuration file could not be read or parsed. */
  CONFIG_UNREADABLE: 'CONFIG_UNREADABLE',
  /** The configuration failed its schema, or a plugin refused its options; the message names the key. */
  CONFIG_INVALID: 'CONFIG_INVALID',
  /** A transcript or session log could not be read or has no tool calls in a known format. */
  TRANSCRIPT_INVALID: 'TRANSCRIPT_INVALID',
  /** An expectations file could not be read or failed its schema. */
  EXPECTATIONS_INVALID: 'EXPECTATIONS_INVALID',
  /** `--input`, `--tool` or `--settings` of `dsh hooks check` is unusable. */
  INPUT_INVALID: 'INPUT_INVALID',
  /** `dsh run` cannot reach a model: no API key in the environment, the provider's SDK missing, a bad `--model` or `--base-url`. */
  MODEL_UNAVAILABLE: 'MODEL_UNAVAILABLE',
  /** `dsh approve` cannot reach the durable engine's ingress, or the engine refused the answer. */
  ENGINE_UNAVAILABLE: 'ENGINE_UNAVAILABLE',
  /** `dsh approve` got no answer from the durable engine within `--timeout`. */
  ENGINE_TIMEOUT: 'ENGINE_TIMEOUT',
  /** `dsh approve --dbos` needs `@dbos-inc/dbos-sdk`, an optional peer, and it is not installed. */
  ENGINE_SDK_MISSING: 'ENGINE_SDK_MISSING',
} as const;

/** One of the CLI's stable error codes. */
export type CliErrorCode = (typeof CliErrorCode)[keyof typeof CliErrorCode];

const exitOf: Readonly<Record<CliErrorCode, ExitCode>> = {
  CLI_USAGE: ExitCode.USAGE,
  CONFIG_UNREADABLE: ExitCode.CONFIG,
  CONFIG_INVALID: ExitCode.CONFIG,
  TRANSCRIPT_INVALID: ExitCode.INPUT,
  EXPECTATIONS_INVALID: ExitCode.INPUT,
  INPUT_INVALID: ExitCode.INPUT,
  MODEL_UNAVAILABLE: ExitCode.CONFIG,
  ENGINE_UNAVAILABLE: ExitCode.ENGINE,
  ENGINE_TIMEOUT: ExitCode.ENGINE,
  // Like a provider SDK missing for `dsh run`: a setup to fix, not an engine to retry later.
  ENGINE_SDK_MISSING: ExitCode.CONFIG,
};

/**
 * An error the CLI reports to the user as `dsh: <code>: <message>` and
 * turns into its exit code; anything else thrown is a bug (exit 70).
 */
export class CliError extends DshError {
  /** The process exit code this error ends the command with. */
  readonly exitCode: ExitCode;

  constructor(code: CliErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'CliError';
    this.exitCode = exitOf[code];
  }
}
