import type { AnyToolDefinition, Host } from '@deepseek-ai/dsh-core';
import type { SubagentDefinition } from './definition.js';

// Claude Code renamed `Task` to `Agent`; definitions written for either name mean the subagent tool.
const aliases: Readonly<Record<string, string>> = { Task: 'Agent' };

function entryMatcher(entry: string): (tool: AnyToolDefinition) => boolean {
  const wanted = aliases[entry] ?? entry;
  if (!wanted.includes('*')) return (tool) => tool.name === wanted || tool.external?.claude?.name === wanted;
  const pattern = new RegExp(
    `^${wanted
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return (tool) => pattern.test(tool.name) || (tool.external?.claude?.name !== undefined && pattern.test(tool.external.claude.name));
}

/**
 * The dsh names of the tools a subagent may call: what its caller may call
 * (every registered tool for the main agent), kept to the definition's
 * `tools` when it lists some, less its `disallowedTools`. An entry matches a
 * tool by its dsh name or its Claude Code name (`Read`); `*` is a glob
 * (`mcp__github__*`). The result is never wider than the caller's set.
 */
export function allowedTools(host: Host, definition: SubagentDefinition, caller: ReadonlySet<string> | undefined): ReadonlySet<string> {
  const base = host.tools.list().filter((tool) => caller === undefined || caller.has(tool.name));
  const listed = definition.tools?.map(entryMatcher);
  const removed = (definition.disallowedTools ?? []).map(entryMatcher);
  const kept = base.filter((tool) => (listed === undefined || listed.some((m) => m(tool))) && !removed.some((m) => m(tool)));
  return new Set(kept.map((tool) => tool.name));
}
