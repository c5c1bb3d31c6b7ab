import type { HookDialect } from './hook-spec.js';

/** A compiled tool-name matcher. */
export interface ToolMatcher {
  /** The matcher as configured; absent when it matches every tool. */
  readonly text: string | undefined;
  test(toolName: string): boolean;
}

/** What compiling a matcher gives: a matcher, or the reason it is invalid. */
export type CompiledMatcher = { readonly ok: true; readonly matcher: ToolMatcher } | { readonly ok: false; readonly message: string };

const everything: ToolMatcher = Object.freeze({ text: undefined, test: () => true });
const exactNames = /^[A-Za-z0-9_\-\s,|]+$/;

/**
 * Compiles a matcher as the dialect defines it.
 * Claude Code: `*`, empty or absent match all; letters, digits, `_`, `-`,
 * spaces, `,` and `|` only make an exact name or a list of them (`Task`
 * also names `Agent`, the subagent tool's name since Claude Code renamed it); anything
 * else is an unanchored JavaScript regex. Gemini CLI: an unanchored regex.
 * Copilot CLI: a regex anchored as `^(?:pattern)$`. An invalid regex is an
 * error, never a silent literal.
 */
export function compileMatcher(text: unknown, dialect: HookDialect): CompiledMatcher {
  if (text === undefined || text === null) return { ok: true, matcher: everything };
  if (typeof text !== 'string') return { ok: false, message: `matcher must be a string, got ${typeof text}` };
  const trimmed = text.trim();
  if (trimmed === '' || trimmed === '*') return { ok: true, matcher: everything };
  if (dialect === 'claude' && exactNames.test(trimmed)) {
    const names = new Set(
      trimmed
        .split(/[|,]/)
        .map((n) => n.trim())
        .filter((n) => n !== ''),
    );
    if (names.size === 0) return { ok: true, matcher: everything };
    // Claude Code renamed its subagent tool from Task to Agent and keeps Task as an alias.
    if (names.has('Task')) names.add('Agent');
    return { ok: true, matcher: Object.freeze({ text, test: (name: string) => names.has(name) }) };
  }
  let regex: RegExp;
  try {
    regex = new RegExp(dialect === 'copilot' ? `^(?:${trimmed})$` : trimmed);
  } catch (error) {
    return { ok: false, message: `matcher ${JSON.stringify(text)} is not a valid regular expression: ${(error as Error).message}` };
  }
  return { ok: true, matcher: Object.freeze({ text, test: (name: string) => regex.test(name) }) };
}
