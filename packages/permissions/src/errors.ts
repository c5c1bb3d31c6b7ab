import { DshError } from '@deepseek-ai/dsh-core';

/** Stable error codes of the permissions package; each is listed in the README. */
export const PermissionsErrorCode = {
  /** The factory's options are invalid; the message names the field. */
  INVALID_OPTIONS: 'INVALID_OPTIONS',
  /** A permission rule cannot be parsed; the message names the rule and where it came from. */
  INVALID_RULE: 'INVALID_RULE',
  /** A settings file is not JSON, or its `permissions` block has the wrong shape. */
  INVALID_SETTINGS: 'INVALID_SETTINGS',
  /** A settings file exists but cannot be read. */
  SETTINGS_UNREADABLE: 'SETTINGS_UNREADABLE',
  /** The project grants file is not a grants file; it was left untouched. */
  GRANTS_FILE_CORRUPT: 'GRANTS_FILE_CORRUPT',
  /** The project grants file could not be read or written. */
  GRANTS_FILE_UNWRITABLE: 'GRANTS_FILE_UNWRITABLE',
  /** Another writer held the grants file's lock for longer than `lockTimeoutMs`. */
  GRANTS_LOCK_TIMEOUT: 'GRANTS_LOCK_TIMEOUT',
  /** A grant to record has no rules, a rule that does not parse, or a scope that is switched off. */
  INVALID_GRANT: 'INVALID_GRANT',
  /** `bypassPermissions` was asked for but a settings file sets `disableBypassPermissionsMode`. */
  BYPASS_DISABLED: 'BYPASS_DISABLED',
  /** A problem, not thrown: an allow rule with a wildcard tool name other than `mcp__<server>__*` is skipped, as Claude Code skips it. */
  ALLOW_TOOL_WILDCARD_SKIPPED: 'ALLOW_TOOL_WILDCARD_SKIPPED',
  /** A problem, not thrown: a path rule on a tool Claude Code never checks paths for (`Write(…)`, `Glob(…)`, `Grep(…)`); dsh applies it. */
  PATH_RULE_NOT_CONSULTED: 'PATH_RULE_NOT_CONSULTED',
  /** A problem, not thrown: an allow rule like `Edit(src/**)` that Claude Code matches at any depth; dsh allows it only from `cwd`. */
  ALLOW_PATH_ANCHORED: 'ALLOW_PATH_ANCHORED',
  /** A problem, not thrown: a Claude Code `sandbox` setting dsh does not implement, or implements differently; the message says what dsh does. */
  SANDBOX_SETTING_UNSUPPORTED: 'SANDBOX_SETTING_UNSUPPORTED',
  /** A problem, not thrown: a key in a `sandbox` section that neither Claude Code nor dsh knows (a typo, say). */
  SANDBOX_SETTING_UNKNOWN: 'SANDBOX_SETTING_UNKNOWN',
  /** One `permissions()` instance was registered on a second host. */
  ALREADY_REGISTERED: 'ALREADY_REGISTERED',
  /** An API that needs the host was used before the plugin was registered. */
  NOT_REGISTERED: 'NOT_REGISTERED',
} as const;

/** One of the permissions package's stable error codes. */
export type PermissionsErrorCode = (typeof PermissionsErrorCode)[keyof typeof PermissionsErrorCode];

/**
 * An error of the permissions package: a `DshError` with one of
 * {@link PermissionsErrorCode}'s codes and, where it applies, the file and
 * rule it is about.
 */
export class PermissionsError extends DshError {
  /** The settings or grants file the error is about, when there is one. */
  readonly file: string | undefined;
  /** The rule text the error is about, when there is one. */
  readonly rule: string | undefined;

  constructor(
    code: PermissionsErrorCode,
    message: string,
    options?: { cause?: unknown; file?: string | undefined; rule?: string | undefined },
  ) {
    super(code, message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PermissionsError';
    this.file = options?.file;
    this.rule = options?.rule;
  }
}
