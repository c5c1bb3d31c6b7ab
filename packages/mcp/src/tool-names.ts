import { normaliseName } from './config.js';

/** The dsh (and Claude Code) name of a server's tool: `mcp__<server>__<tool>`. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${normaliseName(server)}__${normaliseName(tool)}`;
}

/** Whether a tool name matches one of the `*` globs of an allow or deny list. */
export function matchesAny(name: string, globs: readonly string[]): boolean {
  return globs.some((glob) => new RegExp(`^${glob.split('*').map(escapeRegExp).join('.*')}$`).test(name));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
