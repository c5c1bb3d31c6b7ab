import { type PermissionRule, parseRule, RuleMatcher, RulesError } from '@deepseek-ai/dsh-rules';

/**
 * A Claude Code `if` condition: one permission-rule pattern such as
 * `Bash(git *)`, `Edit(*.ts)` or `WebFetch(domain:example.com)`, checked
 * against the tool's Claude name and Claude-shaped input with the same
 * matcher `@deepseek-ai/dsh-permissions` uses for deny and ask rules.
 */
export interface IfRule {
  readonly text: string;
  /**
   * True when the hook should run: the rule names the tool and matches the
   * input, or names the tool and the input cannot be fully checked (fails
   * closed: the hook runs).
   */
  test(toolName: string, input: Readonly<Record<string, unknown>>, where: IfRuleContext): boolean;
  /** {@link IfRule.test} with its reason: why the hook runs without a match, when that is so. */
  check(toolName: string, input: Readonly<Record<string, unknown>>, where: IfRuleContext): IfRuleVerdict;
}

/** What {@link IfRule.check} found. */
export interface IfRuleVerdict {
  /** The hook runs. */
  readonly runs: boolean;
  /** The rule matched the input. */
  readonly matches: boolean;
  /** Why the input could not be fully checked (the hook then runs); absent when it could. */
  readonly unreadable?: string;
}

/** Where relative patterns are anchored. */
export interface IfRuleContext {
  readonly projectDir: string;
  readonly cwd: string;
  readonly homeDir: string;
}

/** What compiling an `if` gives: a rule, or the reason it is invalid. */
export type CompiledIfRule = { readonly ok: true; readonly rule: IfRule } | { readonly ok: false; readonly message: string };

/** How many anchor sets one rule keeps compiled (the plugin uses one; `dsh hooks check` may use another). */
const maxAnchorSets = 4;

/**
 * Compiles an `if` pattern with `@deepseek-ai/dsh-rules`; a rule that does
 * not parse (as permissions would refuse it) is a configuration error.
 */
export function compileIfRule(text: unknown): CompiledIfRule {
  if (typeof text !== 'string') return { ok: false, message: `"if" must be a string, got ${typeof text}` };
  let parsed: PermissionRule;
  try {
    parsed = parseRule(text);
  } catch (error) {
    if (!(error instanceof RulesError)) throw error;
    return { ok: false, message: `"if": ${error.message}` };
  }
  const matchers = new Map<string, RuleMatcher>();
  const matcherFor = (where: IfRuleContext): RuleMatcher => {
    const key = `${where.projectDir}\u0000${where.cwd}\u0000${where.homeDir}`;
    let matcher = matchers.get(key);
    if (matcher === undefined) {
      if (matchers.size >= maxAnchorSets) matchers.clear();
      matcher = new RuleMatcher(parsed, where);
      matchers.set(key, matcher);
    }
    return matcher;
  };
  const check = (toolName: string, input: Readonly<Record<string, unknown>>, where: IfRuleContext): IfRuleVerdict => {
    const found = matcherFor(where).test(toolName, input);
    if (!found.namesTool) return { runs: false, matches: false };
    if (found.matches || found.unreadable === undefined) return { runs: found.matches, matches: found.matches };
    return { runs: true, matches: false, unreadable: found.unreadable };
  };
  const rule: IfRule = { text, check, test: (toolName, input, where) => check(toolName, input, where).runs };
  return { ok: true, rule: Object.freeze(rule) };
}
