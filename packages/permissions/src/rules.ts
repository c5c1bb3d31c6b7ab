import {
  type AnchorOptions,
  type PermissionRule,
  type RuleCheck,
  RulesError,
  checkRules as sharedCheckRules,
  matchRule as sharedMatchRule,
  parseRule as sharedParseRule,
} from '@deepseek-ai/dsh-rules';
import { PermissionsError, PermissionsErrorCode } from './errors.js';

/*
 * The rule syntax lives in @deepseek-ai/dsh-rules, shared with hooks-bridge.
 * These three keep throwing `PermissionsError`, as they did when they lived here.
 */

/** Parses one rule in Claude Code's syntax. Throws a {@link PermissionsError} with code `INVALID_RULE`. */
export function parseRule(text: string): PermissionRule {
  return asPermissionsError(() => sharedParseRule(text));
}

/**
 * Whether a rule applies to a call in Claude Code's vocabulary (deny, ask
 * and hook `if` semantics): `@deepseek-ai/dsh-rules`' `matchRule`, throwing
 * a {@link PermissionsError} with code `INVALID_RULE` for a bad rule.
 */
export function matchRule(
  rule: PermissionRule | string,
  toolName: string,
  input: Readonly<Record<string, unknown>>,
  where?: AnchorOptions,
): boolean {
  return asPermissionsError(() => sharedMatchRule(rule, toolName, input, where));
}

/**
 * Claude Code's precedence (deny, ask, allow) over rules given as text,
 * without a mode: `@deepseek-ai/dsh-rules`' `checkRules`, throwing a
 * {@link PermissionsError} with code `INVALID_RULE` for a bad rule.
 */
export function checkRules(
  rules: { readonly allow?: readonly string[]; readonly deny?: readonly string[]; readonly ask?: readonly string[] },
  toolName: string,
  input: Readonly<Record<string, unknown>>,
  where?: AnchorOptions,
): RuleCheck {
  return asPermissionsError(() => sharedCheckRules(rules, toolName, input, where));
}

function asPermissionsError<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (!(error instanceof RulesError)) throw error;
    throw new PermissionsError(PermissionsErrorCode.INVALID_RULE, error.message, { rule: error.rule, cause: error });
  }
}
