import { RulesError, RulesErrorCode } from './errors.js';

/** The three lists of a `permissions` block. */
export type RuleList = 'allow' | 'deny' | 'ask';

/**
 * How a rule's specifier is read, decided by the tool the rule names:
 * `command` (`Bash(git *)`), `path` (`Read(./src/**)`, gitignore style),
 * `domain` (`WebFetch(domain:example.com)`), `agent` (`Agent(reviewer)`,
 * `Task(reviewer)`), `skill` (`Skill(deploy)`, `Skill(deploy:*)`: the skill's
 * name, with any arguments), `generic` (any other tool: a glob over its
 * string arguments).
 */
export type SpecifierKind = 'command' | 'path' | 'domain' | 'agent' | 'skill' | 'generic';

/** A parsed permission rule in Claude Code's syntax: `Tool` or `Tool(specifier)`. */
export interface PermissionRule {
  /** The rule as written, trimmed. */
  readonly text: string;
  /** The tool it names, in Claude Code's vocabulary (`Bash`, `Edit`, `mcp__github__get_issue`) or a dsh tool name. */
  readonly tool: string;
  /**
   * What is inside the parentheses, with Claude Code's escapes undone (`\(`,
   * `\)` and `\\` as Claude Code's "don't ask again" writes them); absent
   * for a whole-tool rule (`Bash`, `Bash(*)`).
   */
  readonly specifier?: string;
  /** How the specifier is read; absent for a whole-tool rule. */
  readonly kind?: SpecifierKind;
}

const pathTools = new Set(['Read', 'Edit', 'Write', 'MultiEdit', 'NotebookEdit', 'NotebookRead', 'Glob', 'Grep', 'LS']);
const toolName = /^[A-Za-z0-9_-]+$/;
const mcpName = /^mcp__[A-Za-z0-9_*-]+$/;

/**
 * Parses one rule. Throws a {@link RulesError} with code
 * `INVALID_RULE` whose message quotes the rule and says what is wrong.
 * `Tool(*)` is the same as `Tool`; wildcards in a tool name are accepted
 * only after `mcp__` (`mcp__github__*`). The specifier is unescaped as
 * Claude Code does: `\(` and `\)` are parentheses, `\\` one backslash; any
 * other backslash stays (`\*` is a literal star).
 */
export function parseRule(text: string): PermissionRule {
  if (typeof text !== 'string') {
    throw invalid(String(text), `a rule must be a string, got ${text === null ? 'null' : typeof text}`);
  }
  const trimmed = text.trim();
  if (trimmed === '') throw invalid(text, 'the rule is empty');
  const open = trimmed.indexOf('(');
  if (open === -1) {
    checkName(trimmed, trimmed);
    return Object.freeze({ text: trimmed, tool: trimmed });
  }
  if (!trimmed.endsWith(')')) throw invalid(trimmed, 'a rule with "(" must end with ")"');
  const tool = trimmed.slice(0, open).trim();
  checkName(tool, trimmed);
  const specifier = unescapeContent(trimmed.slice(open + 1, -1).trim());
  if (specifier === '') throw invalid(trimmed, `"${tool}()" has an empty specifier; write "${tool}" to mean every use`);
  if (specifier === '*') return Object.freeze({ text: trimmed, tool });
  const kind = kindOf(tool);
  if (kind === 'domain' && !/^domain:\S+$/.test(specifier)) {
    throw invalid(trimmed, `WebFetch rules take "domain:<host>", as in WebFetch(domain:example.com)`);
  }
  if (kind === 'command' && /:\*./.test(specifier)) {
    throw invalid(trimmed, 'the prefix form ":*" may only end a Bash rule, as in Bash(npm run test:*)');
  }
  return Object.freeze({ text: trimmed, tool, specifier, kind });
}

/** How a specifier given to `tool` is read. */
export function kindOf(tool: string): SpecifierKind {
  if (tool === 'Bash') return 'command';
  if (pathTools.has(tool)) return 'path';
  if (tool === 'WebFetch') return 'domain';
  if (tool === 'Agent' || tool === 'Task') return 'agent';
  if (tool === 'Skill') return 'skill';
  return 'generic';
}

/** Undoes Claude Code's escaping of a rule's content: `\(` → `(`, `\)` → `)`, `\\` → `\`, left to right. */
function unescapeContent(content: string): string {
  if (!content.includes('\\')) return content;
  let out = '';
  for (let i = 0; i < content.length; i += 1) {
    const c = content[i] as string;
    const next = content[i + 1];
    if (c === '\\' && (next === '(' || next === ')' || next === '\\')) {
      out += next;
      i += 1;
    } else out += c;
  }
  return out;
}

/** Escapes a specifier the way Claude Code writes rules, so that {@link parseRule} gives it back unchanged. */
function escapeContent(specifier: string): string {
  return specifier.replace(/[\\()]/g, '\\$&');
}

function checkName(name: string, rule: string): void {
  if (name === '') throw invalid(rule, 'the rule names no tool');
  if (name.startsWith('mcp__')) {
    if (!mcpName.test(name)) throw invalid(rule, `"${name}" is not an MCP tool name like mcp__server__tool`);
    return;
  }
  if (name.includes('*')) {
    throw invalid(rule, 'a tool name may only hold "*" after "mcp__<server>__"; write the tool name, or "Tool(*)"');
  }
  if (!toolName.test(name)) throw invalid(rule, `"${name}" is not a tool name (letters, digits, "_" and "-")`);
}

function invalid(rule: string, why: string): RulesError {
  return new RulesError(RulesErrorCode.INVALID_RULE, `invalid permission rule ${JSON.stringify(rule)}: ${why}`, { rule });
}

/**
 * Formats a rule for Claude Code's settings: `Tool` or `Tool(specifier)`,
 * with backslashes and parentheses in the specifier escaped as Claude Code
 * escapes them, so `parseRule(formatRule(t, s)).specifier === s`.
 */
export function formatRule(tool: string, specifier?: string): string {
  return specifier === undefined || specifier === '*' ? tool : `${tool}(${escapeContent(specifier)})`;
}
