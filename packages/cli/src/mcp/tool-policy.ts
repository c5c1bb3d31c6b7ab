import type { AnyToolDefinition } from '@deepseek-ai/dsh-core';
import type { HookSpec } from '@deepseek-ai/dsh-hooks-bridge';
import type { PermissionsPlugin } from '@deepseek-ai/dsh-permissions';
import { formatRule, namesTool } from '@deepseek-ai/dsh-rules';

/** A permission rule that names a tool, and where it is written. */
export interface AppliedRule {
  readonly list: 'allow' | 'ask' | 'deny';
  readonly rule: string;
  /** `.claude/settings.json:7`, `options`, a grant. */
  readonly where: string;
}

/** A hook whose matcher matches a tool. */
export interface AppliedHook {
  readonly event: string;
  /** The matcher as written; absent: every tool. */
  readonly matcher: string | undefined;
  /** A Claude `if` rule: then the hook runs only on the inputs it matches. */
  readonly if: string | undefined;
  readonly command: string;
  readonly source: string;
}

/** What the configured policy says about one tool, before any input is known. */
export interface ToolPolicy {
  readonly rules: readonly AppliedRule[];
  readonly hooks: readonly AppliedHook[];
  /**
   * What the rules and the mode decide for a call with these arguments
   * (`{}`: no input), with the reason; absent without the permissions plugin.
   */
  readonly decision?: { readonly decision: string; readonly reason: string };
}

/**
 * The rules that name `tool` (by its name, `mcp__server`, `mcp__server__*`,
 * as the permissions plugin matches them) and the hooks whose matcher
 * matches it (in each hook's dialect: the tool's own external name there,
 * else ours, as hooks-bridge does).
 */
export function toolPolicy(tool: AnyToolDefinition, permissions: PermissionsPlugin | undefined, hooks: readonly HookSpec[]): ToolPolicy {
  const rules: AppliedRule[] = [];
  for (const sourced of permissions?.rules() ?? []) {
    const claude = tool.external?.claude?.name ?? tool.name;
    if (!namesTool(sourced.rule, { tool: claude, ownName: tool.name, category: 'other' })) continue;
    const o = sourced.origin;
    const where = o.line === undefined ? o.source : `${o.source}:${o.line}`;
    rules.push({ list: sourced.list, rule: formatRule(sourced.rule.tool, sourced.rule.specifier), where });
  }
  const applied: AppliedHook[] = [];
  for (const spec of hooks) {
    const name = tool.external?.[spec.dialect]?.name ?? tool.name;
    if (!spec.matcher.test(name)) continue;
    applied.push({ event: spec.event, matcher: spec.matcher.text, if: spec.ifRule?.text, command: spec.command, source: spec.source });
  }
  let decision: ToolPolicy['decision'];
  if (permissions !== undefined) {
    try {
      const d = permissions.check(tool.name, {});
      decision = { decision: d.decision, reason: d.reason };
    } catch {
      // A tool whose subject cannot be built without input: the rules above still say what applies.
    }
  }
  return { rules, hooks: applied, ...(decision === undefined ? {} : { decision }) };
}
