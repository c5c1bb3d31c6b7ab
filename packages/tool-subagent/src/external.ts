import type { Dialect, ExternalName } from '@deepseek-ai/dsh-core';

/** A tool's names and argument mappings in other agents' vocabularies. */
export type ExternalNames = Readonly<Partial<Record<Dialect, ExternalName>>>;

function defined(entries: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entries)) if (value !== undefined) out[key] = value;
  return out;
}

/**
 * `task` as Claude Code's `Agent` (formerly `Task`): `{ description, prompt,
 * subagent_type }`, the same field names. So hooks matching `Agent` and
 * rules like `Agent(reviewer)` apply to it; permission rules (and hook `if`
 * conditions) naming the old name, `Task(reviewer)`, apply too, because
 * `@deepseek-ai/dsh-rules` reads `Task` as an alias of `Agent`, as Claude
 * Code does. Claude's `model` argument has no counterpart: a subagent's
 * model comes from its definition.
 */
export const taskExternal: ExternalNames = {
  claude: {
    name: 'Agent',
    toExternal: (a) => defined({ description: a.description, prompt: a.prompt, subagent_type: a.subagent_type }),
    fromExternal: (i) => defined({ description: i.description, prompt: i.prompt, subagent_type: i.subagent_type }),
  },
};
