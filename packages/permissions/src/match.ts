import { type PermissionRule, parseRule } from './rule.js';
import { coverage, namesTool, RuleSet } from './rule-set.js';
import { type AnchorOptions, defaultAnchors, subjectOf } from './subject.js';

/**
 * Whether a rule applies to a call named and shaped in Claude Code's
 * vocabulary (`Bash` with `{ command }`, `Edit` with `{ file_path }`): the
 * test deny and ask rules use, and the one Claude Code's hook `if` field
 * needs. For Bash it is enough that one command of the line matches (so
 * `Bash(rm *)` applies to `git log; rm -rf ~`); for file tools, the path as
 * given or through its symlinks. Allowing needs more (every command
 * covered): see {@link checkRules}. Throws `INVALID_RULE` for a bad rule.
 */
export function matchRule(
  rule: PermissionRule | string,
  toolName: string,
  input: Readonly<Record<string, unknown>>,
  where?: AnchorOptions,
): boolean {
  const parsed = typeof rule === 'string' ? parseRule(rule) : rule;
  const anchors = defaultAnchors(where);
  const subject = subjectOf(toolName, input, anchors);
  if (!namesTool(parsed, subject)) return false;
  return new RuleSet([{ rule: parsed, list: 'deny', origin: { source: 'matchRule' } }], anchors).firstMatch('deny', subject) !== undefined;
}

/** What {@link checkRules} found: the list that decides (none: the mode would), and the rules that decided. */
export interface RuleCheck {
  readonly decision: 'allow' | 'deny' | 'ask' | undefined;
  readonly rules: readonly string[];
}

/**
 * Applies `allow`, `deny` and `ask` rules to a call in Claude Code's
 * vocabulary, with Claude Code's precedence (deny, then ask, then allow,
 * whatever the order they are given in) and no mode. For Bash, allow needs
 * every command of the line covered. Throws `INVALID_RULE` for a bad rule.
 */
export function checkRules(
  rules: { readonly allow?: readonly string[]; readonly deny?: readonly string[]; readonly ask?: readonly string[] },
  toolName: string,
  input: Readonly<Record<string, unknown>>,
  where?: AnchorOptions,
): RuleCheck {
  const anchors = defaultAnchors(where);
  const lists = ['deny', 'ask', 'allow'] as const;
  const sourced = lists.flatMap((list) =>
    (rules[list] ?? []).map((text) => ({ rule: parseRule(text), list, origin: { source: 'checkRules' } })),
  );
  const set = new RuleSet(sourced, anchors);
  const subject = subjectOf(toolName, input, anchors);
  for (const list of ['deny', 'ask'] as const) {
    const match = set.firstMatch(list, subject);
    if (match !== undefined) return { decision: list, rules: [match.rule.rule.text] };
  }
  const covered = coverage(subject, [set]);
  return covered.covered ? { decision: 'allow', rules: covered.by.map((s) => s.rule.text) } : { decision: undefined, rules: [] };
}
