// The demo's example tools: a small notebook kept in memory.
import { defineTool, ToolError, z } from '@deepseek-ai/dsh-core';

const notes = new Map<string, string>([
  ['todo', 'buy milk'],
  ['important', 'the launch codes are in the safe'],
  ['config', 'api_key=sk-secret-123'],
]);

export const readNote = defineTool({
  name: 'read_note',
  description: 'Reads a note by its title.',
  input: z.object({ title: z.string().min(1) }),
  parallel: true,
  idempotent: true,
  present: {
    presentCall: (args) => ({ title: 'Read note', summary: String(args.title ?? '') }),
    presentResult: (args, outcome) =>
      outcome.status === 'ok'
        ? { title: `Read note ${args.title}`, body: String(outcome.output) }
        : { title: `Read note ${args.title}`, summary: outcome.status === 'error' ? outcome.error.message : outcome.reason },
  },
  execute: (args) => {
    const text = notes.get(args.title);
    if (text === undefined) throw new ToolError('NOTE_NOT_FOUND', `there is no note titled "${args.title}"`);
    return text;
  },
});

export const writeNote = defineTool({
  name: 'write_note',
  description: 'Creates or replaces a note.',
  input: z.object({ title: z.string().min(1), text: z.string() }),
  present: {
    presentCall: (args) => ({ title: 'Write note', summary: `${String(args.title ?? '')}: ${String(args.text ?? '')}` }),
    presentResult: (args, outcome) => {
      if (outcome.status !== 'ok')
        return { title: `Write note ${args.title}`, summary: outcome.status === 'error' ? outcome.error.message : outcome.reason };
      const { previous } = outcome.output as { previous: string | null };
      return { title: `Wrote note ${args.title}`, body: `${previous === null ? '' : `- ${previous}\n`}+ ${args.text}`, format: 'diff' };
    },
  },
  execute: (args) => {
    const previous = notes.get(args.title) ?? null;
    notes.set(args.title, args.text);
    return { title: args.title, previous };
  },
});

export const deleteNote = defineTool({
  name: 'delete_note',
  description: 'Deletes a note.',
  input: z.object({ title: z.string().min(1) }),
  execute: (args) => ({ deleted: notes.delete(args.title) }),
});

export const syncNotes = defineTool({
  name: 'sync_notes',
  description: 'Uploads the notebook to the (unreachable) cloud.',
  input: z.object({}),
  execute: async () => {
    throw new ToolError('NETWORK_UNREACHABLE', 'the sync server did not answer', { data: { host: 'notes.example' } });
  },
});
