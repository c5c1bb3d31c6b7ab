import type { Dialect, ExternalName } from '@deepseek-ai/dsh-core';

/** A tool's names and argument mappings in other agents' vocabularies. */
export type ExternalNames = Readonly<Partial<Record<Dialect, ExternalName>>>;

type Input = Readonly<Record<string, unknown>>;

function items(value: unknown): Input[] {
  return Array.isArray(value) ? value.filter((v): v is Input => typeof v === 'object' && v !== null) : [];
}

function defined(entries: Input): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entries)) if (value !== undefined) out[key] = value;
  return out;
}

/**
 * `todo_write` as Claude Code's `TodoWrite` (`{ todos: [{ content, status,
 * activeForm }] }`; a missing `activeForm` is sent as the `content`),
 * Gemini CLI's `write_todos` (`description` for `content`; Gemini's
 * `cancelled` status has no counterpart here and is passed through, so a
 * hook's rewrite that uses it fails validation rather than being guessed
 * at) and Codex's `update_plan` (`plan: [{ step, status }]`).
 */
export const todoExternal: ExternalNames = {
  claude: {
    name: 'TodoWrite',
    toExternal: (a) => ({
      todos: items(a.todos).map((t) => defined({ content: t.content, status: t.status, activeForm: t.activeForm ?? t.content, id: t.id })),
    }),
    fromExternal: (i) => ({
      todos: items(i.todos).map((t) => defined({ content: t.content, status: t.status, activeForm: t.activeForm, id: t.id })),
    }),
  },
  gemini: {
    name: 'write_todos',
    toExternal: (a) => ({ todos: items(a.todos).map((t) => defined({ description: t.content, status: t.status })) }),
    fromExternal: (i) => ({
      todos: items(i.todos).map((t) => defined({ content: t.description ?? t.content, status: t.status, activeForm: t.activeForm })),
    }),
  },
  codex: {
    name: 'update_plan',
    toExternal: (a) => ({ plan: items(a.todos).map((t) => defined({ step: t.content, status: t.status })) }),
    fromExternal: (i) => ({ todos: items(i.plan).map((t) => defined({ content: t.step, status: t.status })) }),
  },
};
