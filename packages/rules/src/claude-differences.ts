import type { PermissionRule, RuleList } from './rule.js';

/**
 * Why a rule is read differently from Claude Code, or skipped as Claude Code skips it:
 * - `ALLOW_TOOL_WILDCARD_SKIPPED`: an allow rule with a wildcard in its tool name other than
 *   `mcp__<server>__*` (`mcp__*`, `mcp__github__get*`). Claude Code skips it with a warning
 *   (since 2.1.166), and so does dsh: it allows nothing.
 * - `PATH_RULE_NOT_CONSULTED`: a path rule on a tool Claude Code never consults for paths
 *   (`Write(…)`, `MultiEdit(…)`, `NotebookEdit(…)`, `Glob(…)`, `Grep(…)`, `LS(…)`). Claude Code
 *   warns at start-up and ignores it (only `Read(path)` and `Edit(path)` are checked); dsh
 *   applies it to that tool.
 * - `ALLOW_PATH_ANCHORED`: an allow rule whose relative pattern holds a slash (`Edit(src/**)`).
 *   Claude Code matches it at any depth under the project; dsh allows it only from `cwd`.
 */
export type ClaudeDifferenceCode = 'ALLOW_TOOL_WILDCARD_SKIPPED' | 'PATH_RULE_NOT_CONSULTED' | 'ALLOW_PATH_ANCHORED';

/** One rule whose meaning in dsh differs from Claude Code's, or that both skip. */
export interface ClaudeDifference {
  /** Which difference: see {@link ClaudeDifferenceCode}. */
  readonly code: ClaudeDifferenceCode;
  /** The rule as written. */
  readonly rule: string;
  /** The list the rule is in: the same rule may differ in `allow` and not in `deny`. */
  readonly list: RuleList;
  /** What dsh does with the rule: `skipped` (it has no effect) or `applied` (with the meaning the message gives). */
  readonly dsh: 'skipped' | 'applied';
  /** The Claude Code version whose behaviour the difference refers to (`current documentation` where no release is known). */
  readonly claudeCode: string;
  /** For people: what Claude Code does, and what dsh does. */
  readonly message: string;
}

/** Claude Code's file tools that take a path rule but are never consulted for one: only `Read` and `Edit` are. */
const notConsulted = new Set(['Write', 'MultiEdit', 'NotebookEdit', 'NotebookRead', 'Glob', 'Grep', 'LS']);

/**
 * How `rule` in `list` differs from Claude Code's reading of it; empty
 * when it means the same. Pure: callers report each difference once.
 */
export function claudeDifferences(rule: PermissionRule, list: RuleList): ClaudeDifference[] {
  const out: ClaudeDifference[] = [];
  const base = { rule: rule.text, list };
  if (skippedByClaude(rule, list)) {
    out.push({
      ...base,
      code: 'ALLOW_TOOL_WILDCARD_SKIPPED',
      dsh: 'skipped',
      claudeCode: '2.1.166',
      message: `allow rule "${rule.text}" is skipped: an allow rule may hold a wildcard in its tool name only as "mcp__<server>__*" (Claude Code skips it with a warning since 2.1.166); name the server, as in "mcp__github" or "mcp__github__*"`,
    });
  }
  if (rule.kind === 'path' && notConsulted.has(rule.tool)) {
    out.push({
      ...base,
      code: 'PATH_RULE_NOT_CONSULTED',
      dsh: 'applied',
      claudeCode: '2.1.209',
      message: `${list} rule "${rule.text}": Claude Code never checks "${rule.tool}(path)" rules (only Read(path) and Edit(path); it warns at start-up, as of 2.1.209); dsh applies it to ${rule.tool} calls. Write "${rule.tool === 'Glob' || rule.tool === 'Grep' || rule.tool === 'LS' || rule.tool === 'NotebookRead' ? 'Read' : 'Edit'}(${rule.specifier})" for both`,
    });
  }
  if (list === 'allow' && rule.kind === 'path' && relativeWithSlash(rule.specifier)) {
    out.push({
      ...base,
      code: 'ALLOW_PATH_ANCHORED',
      dsh: 'applied',
      claudeCode: 'current documentation',
      message: `allow rule "${rule.text}": Claude Code matches "${rule.specifier}" at any depth under the project; dsh allows it only from the working directory (deny and ask rules match at any depth). Write "${rule.tool}(**/${rule.specifier})" to allow it everywhere`,
    });
  }
  return out;
}

/**
 * Whether Claude Code skips the rule in that list: an allow rule with a
 * wildcard in its tool name other than `mcp__<server>__*`. Deny and ask
 * rules accept wildcards anywhere after `mcp__`.
 */
export function skippedByClaude(rule: PermissionRule, list: RuleList): boolean {
  if (list !== 'allow' || !rule.tool.includes('*')) return false;
  return !/^mcp__[A-Za-z0-9_-]+__\*$/.test(rule.tool);
}

/** A pattern anchored at `cwd` only because it holds a slash (`src/**`), not one that starts with `/`, `./`, `../`, `~` or `**` and a slash, nor `*.ts`. */
export function relativeWithSlash(specifier: string | undefined): boolean {
  if (specifier === undefined) return false;
  if (/^(?:\/|\.\.?\/|~|\*\*\/)/.test(specifier)) return false;
  return specifier.replace(/\/+$/, '').includes('/');
}
