import type { Dialect, ExternalName } from '@deepseek-ai/dsh-core';

/** A tool's names and argument mappings in other agents' vocabularies. */
export type ExternalNames = Readonly<Partial<Record<Dialect, ExternalName>>>;

const nameOf = (value: unknown): string | undefined => (typeof value === 'string' ? value.replace(/^\//, '') : undefined);

function defined(entries: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entries)) if (value !== undefined) out[key] = value;
  return out;
}

/**
 * `skill` as Claude Code's `Skill` (`{ skill }`; older versions sent
 * `command`, sometimes with a leading `/`) and Gemini CLI's
 * `activate_skill` (`{ name }`). Claude's `args` has no counterpart: skill
 * arguments are not substituted here.
 */
export const skillExternal: ExternalNames = {
  claude: {
    name: 'Skill',
    toExternal: (a) => defined({ skill: a.name }),
    fromExternal: (i) => defined({ name: nameOf(i.skill) ?? nameOf(i.command) ?? nameOf(i.name) }),
  },
  gemini: {
    name: 'activate_skill',
    toExternal: (a) => defined({ name: a.name }),
    fromExternal: (i) => defined({ name: nameOf(i.name) ?? nameOf(i.skill) }),
  },
};
