import { isAbsolute, relative } from 'node:path';
import type { Decision } from '@deepseek-ai/dsh-core';
import type { RuleList, RuleSubject } from '@deepseek-ai/dsh-rules';
import { coverage, type RuleMatch, type RuleSet, type SourcedRule } from '@deepseek-ai/dsh-rules';

/**
 * Claude Code's permission modes. `default`: ask for anything not allowed,
 * reads in the workspace allowed. `acceptEdits`: file edits in the workspace
 * allowed too. `plan`: nothing that edits files, runs commands or is not
 * known to be read-only runs. `bypassPermissions`: allow, but deny and ask
 * rules still apply. `dontAsk`: every ask becomes a deny.
 */
export type PermissionMode = 'default' | 'acceptEdits' | 'plan' | 'bypassPermissions' | 'dontAsk';

/** Every permission mode, in the order Claude Code cycles through them. */
export const permissionModes: readonly PermissionMode[] = Object.freeze(['default', 'acceptEdits', 'plan', 'bypassPermissions', 'dontAsk']);

/** What decided a call (one entry, or for a Bash line several rules and grants covering its commands). */
export type DecidedBy =
  | {
      readonly kind: 'rule';
      readonly list: RuleList;
      readonly rule: string;
      /** `options` or the settings file as shown to users. */
      readonly source: string;
      readonly file?: string;
      readonly line?: number;
      /** The command or path the rule matched, when it matched a part. */
      readonly target?: string;
    }
  | { readonly kind: 'grant'; readonly grant: string; readonly rule: string }
  | { readonly kind: 'mode'; readonly mode: PermissionMode }
  | { readonly kind: 'tap'; readonly tap: string };

/** A permission decision and everything needed to answer "why?". */
export interface PermissionDecision {
  readonly decision: Decision;
  readonly mode: PermissionMode;
  /** For people and the model; always names the mode. */
  readonly reason: string;
  readonly by: readonly DecidedBy[];
  /**
   * True when the call is asked only because no allow rule covers it: an
   * approval remembered for the session or project would allow it next
   * time. False when an ask rule or another tap asked (a grant never
   * overrides those), and for allow and deny.
   */
  readonly rememberable: boolean;
  /** For Bash: the commands that no allow rule or grant covers. */
  readonly uncovered?: readonly string[];
}

/** Everything a decision depends on. */
export interface DecideInput {
  readonly subject: RuleSubject;
  readonly mode: PermissionMode;
  readonly rules: RuleSet;
  /** Remembered approvals, as allow rules. Read only when the decision gets as far as allow rules (it may be a getter). */
  readonly grants: readonly RuleSet[];
  /** Directories where reads (and, in `acceptEdits`, edits) need no approval; lexical and real forms. */
  readonly workspace: readonly string[];
  /** The tool is read-only although its category does not say so. */
  readonly readOnly: boolean;
  /** The decision an earlier pre-execute tap set, if one did. */
  readonly prior?: { readonly decision: Decision; readonly tap: string; readonly reason?: string | undefined };
}

/**
 * Decides a call: deny rules, then ask rules (and an earlier tap's ask),
 * then plan mode's refusal of anything that is not read-only, then a Bash
 * line the scanner cannot fully read while deny or ask rules name Bash
 * (asked: those rules cannot be checked on it), then
 * `bypassPermissions`, then allow rules and grants (and an earlier tap's
 * allow), then the mode. Deny beats ask beats allow whatever their order
 * or file.
 */
export function decide(input: DecideInput): PermissionDecision {
  const { subject, mode, rules, prior } = input;
  const tag = `permissions (mode ${mode})`;
  const denied = rules.firstMatch('deny', subject);
  if (denied !== undefined) {
    return { decision: 'deny', mode, reason: `${tag}: denied by ${describe(denied)}`, by: [byRule(denied)], rememberable: false };
  }
  const asked = rules.firstMatch('ask', subject);
  if (asked !== undefined) {
    if (mode === 'dontAsk') {
      return {
        decision: 'deny',
        mode,
        reason: `${tag}: ${describe(asked)} asks, and dontAsk turns every ask into a deny`,
        by: [byRule(asked), { kind: 'mode', mode }],
        rememberable: false,
      };
    }
    return { decision: 'ask', mode, reason: `${tag}: approval required by ${describe(asked)}`, by: [byRule(asked)], rememberable: false };
  }
  if (prior?.decision === 'ask') {
    const why = prior.reason === undefined ? `"${prior.tap}" asked for approval` : `"${prior.tap}" asked for approval: ${prior.reason}`;
    if (mode === 'dontAsk') {
      return {
        decision: 'deny',
        mode,
        reason: `${tag}: ${why}, and dontAsk turns every ask into a deny`,
        by: [
          { kind: 'tap', tap: prior.tap },
          { kind: 'mode', mode },
        ],
        rememberable: false,
      };
    }
    return { decision: 'ask', mode, reason: `${tag}: ${why}`, by: [{ kind: 'tap', tap: prior.tap }], rememberable: false };
  }
  const readOnly = input.readOnly || subject.category === 'read';
  if (mode === 'plan' && !readOnly && subject.category !== 'web') {
    return {
      decision: 'deny',
      mode,
      reason: `${tag}: plan mode runs nothing that may change files or run commands, and "${subject.ownName}" may`,
      by: [{ kind: 'mode', mode }],
      rememberable: false,
    };
  }
  const unreadable = subject.command !== undefined && (!subject.command.complete || subject.command.commands.some((c) => !c.exact));
  if (unreadable && rules.hasSpecificDenyOrAsk(subject)) {
    // Deny and ask rules cannot be checked on what the scanner cannot read, so nothing allows it unasked.
    const why = `the command cannot be fully read (${subject.command?.problems[0] ?? 'a program is not known before it runs'}), so deny and ask rules cannot be checked`;
    if (mode === 'dontAsk') {
      return {
        decision: 'deny',
        mode,
        reason: `${tag}: ${why}, and dontAsk turns every ask into a deny`,
        by: [{ kind: 'mode', mode }],
        rememberable: false,
      };
    }
    return { decision: 'ask', mode, reason: `${tag}: ${why}`, by: [{ kind: 'mode', mode }], rememberable: false };
  }
  if (mode === 'bypassPermissions') {
    return {
      decision: 'allow',
      mode,
      reason: `${tag}: allowed, no deny or ask rule applies`,
      by: [{ kind: 'mode', mode }],
      rememberable: false,
    };
  }
  const covered = coverage(subject, [rules, ...input.grants]);
  if (covered.covered) {
    const by = covered.by.map(bySourced);
    return { decision: 'allow', mode, reason: `${tag}: allowed by ${covered.by.map(describeSourced).join(', ')}`, by, rememberable: false };
  }
  if (prior?.decision === 'allow') {
    return {
      decision: 'allow',
      mode,
      reason: `${tag}: allowed by "${prior.tap}"`,
      by: [{ kind: 'tap', tap: prior.tap }],
      rememberable: false,
    };
  }
  const inside = subject.paths?.every((p) => within(p, input.workspace)) === true;
  if (readOnly && inside) {
    return {
      decision: 'allow',
      mode,
      reason: `${tag}: reads inside the workspace need no approval`,
      by: [{ kind: 'mode', mode }],
      rememberable: false,
    };
  }
  if (mode === 'acceptEdits' && subject.category === 'edit' && inside) {
    return {
      decision: 'allow',
      mode,
      reason: `${tag}: acceptEdits allows edits inside the workspace`,
      by: [{ kind: 'mode', mode }],
      rememberable: false,
    };
  }
  const what = uncoveredText(subject, covered.uncovered, readOnly, inside);
  const extra = covered.uncovered.length > 0 ? { uncovered: covered.uncovered } : {};
  if (mode === 'dontAsk') {
    return {
      decision: 'deny',
      mode,
      reason: `${tag}: ${what}, and dontAsk denies what it would ask`,
      by: [{ kind: 'mode', mode }],
      rememberable: false,
      ...extra,
    };
  }
  return { decision: 'ask', mode, reason: `${tag}: ${what}`, by: [{ kind: 'mode', mode }], rememberable: true, ...extra };
}

function uncoveredText(subject: RuleSubject, uncovered: readonly string[], readOnly: boolean, inside: boolean): string {
  if (uncovered.length > 0) return `no allow rule covers ${uncovered.map((c) => JSON.stringify(c)).join(', ')}`;
  if (readOnly && !inside) return `"${subject.ownName}" reaches outside the workspace and no allow rule covers it`;
  return `no allow rule covers this "${subject.ownName}" call`;
}

/** Whether `path` is one of `dirs` or inside one. */
export function within(path: string, dirs: readonly string[]): boolean {
  return dirs.some((dir) => {
    const rel = relative(dir, path);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  });
}

function describe(match: RuleMatch): string {
  const target = match.target === undefined ? '' : ` (matched ${JSON.stringify(match.target)})`;
  return `${describeSourced(match.rule)}${target}`;
}

function describeSourced(sourced: SourcedRule): string {
  const { origin, rule, list } = sourced;
  if (origin.grant !== undefined) return `remembered approval ${origin.grant} "${rule.text}"`;
  const where = origin.line === undefined ? origin.source : `${origin.source}:${origin.line}`;
  return `${list} rule "${rule.text}" from ${where}`;
}

function byRule(match: RuleMatch): DecidedBy {
  const base = bySourced(match.rule);
  return match.target === undefined || base.kind !== 'rule' ? base : { ...base, target: match.target };
}

function bySourced(sourced: SourcedRule): DecidedBy {
  const { origin, rule, list } = sourced;
  if (origin.grant !== undefined) return { kind: 'grant', grant: origin.grant, rule: rule.text };
  // Fields set one by one, not spread in: a spread after other fields takes V8's slow copying path.
  const by: { -readonly [K in keyof RuleBy]: RuleBy[K] } = { kind: 'rule', list, rule: rule.text, source: origin.source };
  if (origin.file !== undefined) by.file = origin.file;
  if (origin.line !== undefined) by.line = origin.line;
  return by;
}

type RuleBy = Extract<DecidedBy, { kind: 'rule' }>;
