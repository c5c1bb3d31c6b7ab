import { type PermissionRule, parseRule } from './rule.js';
import { coverage, display, namesTool, RuleSet } from './rule-set.js';
import { type AnchorOptions, type Anchors, defaultAnchors, type RuleSubject, subjectOf } from './subject.js';

/** What {@link RuleMatcher.test} found about one call. */
export interface RuleTest {
  /** The rule names the call's tool: by its name, its category (`Edit`, `Read`) or its MCP server (`mcp__github`, `mcp__github__*`). */
  readonly namesTool: boolean;
  /** The rule applies, as {@link matchRule} decides: one command of a Bash line, or the path as given or through its symlinks. */
  readonly matches: boolean;
  /**
   * Why the call could not be checked completely against the rule's
   * specifier: a Bash line the scanner cannot read, a program not known
   * statically (`$CMD`, `eval "$x"`), or an input without the field the
   * specifier reads (no `command`, no path, a URL that does not parse).
   * `undefined` when it could be, when the rule has no specifier, or when it
   * does not name the tool. A caller that must not miss a match (a hook's
   * `if`) treats such a call as matching.
   */
  readonly unreadable: string | undefined;
}

/**
 * One rule compiled for repeated tests against calls in Claude Code's
 * vocabulary, with the anchors fixed: what a hook's `if` condition needs.
 * Throws `INVALID_RULE` for a rule that does not parse.
 */
export class RuleMatcher {
  /** The parsed rule. */
  readonly rule: PermissionRule;
  readonly #anchors: Anchors;
  readonly #set: RuleSet;

  constructor(rule: PermissionRule | string, where?: AnchorOptions) {
    this.rule = typeof rule === 'string' ? parseRule(rule) : rule;
    this.#anchors = defaultAnchors(where);
    this.#set = new RuleSet([{ rule: this.rule, list: 'deny', origin: { source: 'matchRule' } }], this.#anchors);
  }

  /** Tests a call given by its Claude-style name (and, when it differs, its dsh name) and input. */
  test(toolName: string, input: Readonly<Record<string, unknown>>, ownName = toolName): RuleTest {
    const subject = subjectOf(toolName, input, this.#anchors, ownName);
    if (!namesTool(this.rule, subject)) return { namesTool: false, matches: false, unreadable: undefined };
    const matches = this.#set.firstMatch('deny', subject) !== undefined;
    return { namesTool: true, matches, unreadable: this.rule.specifier === undefined ? undefined : unreadableFor(this.rule, subject) };
  }
}

/**
 * Whether a rule applies to a call named and shaped in Claude Code's
 * vocabulary (`Bash` with `{ command }`, `Edit` with `{ file_path }`): the
 * test deny and ask rules use. For Bash it is enough that one command of the
 * line matches (so `Bash(rm *)` applies to `git log; rm -rf ~`); for file
 * tools, the path as given or through its symlinks. A line the scanner cannot
 * read only matches rules that match its text; {@link testRule} says when
 * that happened. Allowing needs more (every command covered): see
 * {@link checkRules}. Throws `INVALID_RULE` for a bad rule.
 */
export function matchRule(
  rule: PermissionRule | string,
  toolName: string,
  input: Readonly<Record<string, unknown>>,
  where?: AnchorOptions,
): boolean {
  return new RuleMatcher(rule, where).test(toolName, input).matches;
}

/** {@link matchRule} with the whole answer: whether the rule names the tool, matches, and what could not be read. */
export function testRule(
  rule: PermissionRule | string,
  toolName: string,
  input: Readonly<Record<string, unknown>>,
  where?: AnchorOptions,
): RuleTest {
  return new RuleMatcher(rule, where).test(toolName, input);
}

function unreadableFor(rule: PermissionRule, subject: RuleSubject): string | undefined {
  const input = subject.input;
  if (subject.command !== undefined) {
    if (typeof input.command !== 'string') return 'the input has no "command"';
    const split = subject.command;
    if (!split.complete) return `the command line cannot be read statically: ${split.problems.join('; ')}`;
    const unknown = split.commands.find((c) => !c.exact);
    return unknown === undefined ? undefined : `the program of ${JSON.stringify(display(unknown.text))} is not known statically`;
  }
  switch (rule.kind) {
    case 'path':
      return subject.paths === undefined ? 'the input has no file path' : undefined;
    case 'domain':
      return subject.host === undefined ? 'the input has no "url" that parses' : undefined;
    case 'agent':
      return typeof input.subagent_type === 'string' ? undefined : 'the input has no "subagent_type"';
    case 'skill':
      return [input.skill, input.command, input.name].some((v) => typeof v === 'string' && v !== '')
        ? undefined
        : 'the input has no "skill"';
    case 'command':
      return 'the input has no "command"';
    default:
      return Object.values(input).some((v) => typeof v === 'string') ? undefined : 'the input has no string argument';
  }
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
