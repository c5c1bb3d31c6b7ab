import type { AnyToolDefinition } from '@deepseek-ai/dsh-core';
import { splitToolList } from '@deepseek-ai/dsh-rules';

/** One `allowed-tools` entry, compiled: a tool name (or `*` glob) and what its specifier admits. */
export interface AllowedTool {
  /** The entry as written (`Bash(git diff *)`). */
  readonly entry: string;
  readonly tool: string;
  /** Absent for the whole tool. */
  readonly specifier?: string;
}

/**
 * Splits an `allowed-tools` value: a string of entries separated by spaces
 * or commas outside parentheses (`Read Bash(git diff *)`), or a YAML list
 * (dsh-rules' `splitToolList`); absent means none. Returns `undefined` for any other type.
 */
export function splitAllowedTools(value: unknown): string[] | undefined {
  return value === undefined || value === null ? [] : splitToolList(value);
}

const entryPattern = /^([A-Za-z0-9_*.-]+)(?:\(([\s\S]*)\))?$/;

/**
 * Compiles one entry, or says why it can never pre-approve anything: only
 * whole tools (`Read`, `mcp__github__*`), `Bash(...)` command patterns and
 * `WebFetch(domain:...)` are understood; path specifiers (`Edit(src/**)`)
 * and others are not, and are left out rather than read loosely.
 */
export function compileAllowedTool(entry: string): AllowedTool | { readonly unsupported: string } {
  const match = entryPattern.exec(entry);
  if (match === null) return { unsupported: `"${entry}" is not a tool name or Tool(specifier)` };
  const tool = match[1] as string;
  const specifier = match[2]?.trim();
  if (specifier === undefined || specifier === '' || specifier === '*') return { entry, tool };
  if (tool === 'Bash') return { entry, tool, specifier };
  if (tool === 'WebFetch' && /^domain:[A-Za-z0-9.-]+$/.test(specifier)) return { entry, tool, specifier: specifier.toLowerCase() };
  return { unsupported: `"${entry}": only whole tools, Bash(command pattern) and WebFetch(domain:host) are understood here` };
}

function globMatch(pattern: string, name: string): boolean {
  if (!pattern.includes('*')) return pattern === name;
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`).test(name);
}

// Anything that can chain, substitute or redirect: such a command is never pre-approved by a pattern.
const shellControl = /[;&|<>`$(){}\n\r\\]/;

function commandMatches(pattern: string, command: string): boolean {
  if (shellControl.test(command)) return false;
  const text = command.trim();
  if (pattern.endsWith(':*')) {
    const prefix = pattern.slice(0, -2).trim();
    return text === prefix || text.startsWith(`${prefix} `);
  }
  if (pattern.endsWith(' *') && text === pattern.slice(0, -2).trim()) return true;
  return globMatch(pattern, text);
}

function externalInput(tool: AnyToolDefinition, args: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  const claude = tool.external?.claude;
  if (claude === undefined) return args;
  try {
    return claude.toExternal(args);
  } catch {
    return {};
  }
}

/**
 * Whether an entry covers a call: the tool's own name or its Claude Code
 * name matches, and so does the specifier (the command for Bash, the URL's
 * host for WebFetch). Commands with shell control characters never match
 * a pattern.
 */
export function allowedToolCovers(allowed: AllowedTool, tool: AnyToolDefinition, args: Readonly<Record<string, unknown>>): boolean {
  const claudeName = tool.external?.claude?.name;
  if (!globMatch(allowed.tool, tool.name) && (claudeName === undefined || !globMatch(allowed.tool, claudeName))) return false;
  if (allowed.specifier === undefined) return true;
  const input = externalInput(tool, args);
  if (allowed.tool === 'Bash') return typeof input.command === 'string' && commandMatches(allowed.specifier, input.command);
  if (allowed.tool === 'WebFetch' && typeof input.url === 'string') {
    try {
      return new URL(input.url).hostname.toLowerCase() === allowed.specifier.slice('domain:'.length);
    } catch {
      return false;
    }
  }
  return false;
}
