// `pnpm demo`: a scripted session that shows every path of the dsh pipeline.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ApprovalProvider, createHost, type Host, jsonlSink, type StepCall } from '@deepseek-ai/dsh-core';
import { deleteNote, readNote, syncNotes, writeNote } from './notebook.js';
import { bold, completedCard, dim, heading, pendingCard } from './render.js';

const logPath = join(mkdtempSync(join(tmpdir(), 'dsh-demo-')), 'session.jsonl');

/** Stands in for a person at the terminal: approves writes and deletes, and says so. */
const person: ApprovalProvider = (request) => {
  console.log(
    `  ${bold('?')} approve ${request.tool.name} ${JSON.stringify(request.args)}${request.reason ? ` (${request.reason})` : ''} ${dim('→ yes, once')}`,
  );
  return 'allowed-once';
};

function host(approval: ApprovalProvider | undefined): Host {
  const h = createHost({
    session: 'demo',
    sink: jsonlSink(logPath),
    ...(approval ? { approval } : {}),
    ui: {
      pending: (call, card) => console.log(pendingCard(call, card)),
      completed: (call, card, outcome) => console.log(completedCard(call, card, outcome)),
    },
  });
  for (const tool of [readNote, writeNote, deleteNote, syncNotes]) h.tools.register(tool);
  // A policy tap: reads are fine; anything that changes notes is put to the person.
  h.hooks.preExecute.tap('notes-policy', (state) =>
    state.call.name === 'read_note' || state.call.name === 'sync_notes'
      ? { decision: 'allow', reason: 'reading is safe' }
      : { decision: 'ask', reason: 'this changes the notebook' },
  );
  // A guard nothing can overrule, not even the person's approval.
  h.guards.register({
    id: 'keep-important',
    check: ({ call, args }) =>
      call.name === 'delete_note' && args.title === 'important' ? { deny: 'the note "important" is never deleted' } : 'abstain',
  });
  // After execution: hide secrets from the model, and tell it what changed.
  h.hooks.postExecute.tap('redact-secrets', (state) =>
    state.outcome.status === 'ok' && typeof state.outcome.output === 'string' && state.outcome.output.includes('secret')
      ? {
          replaceOutput: state.outcome.output.replace(/sk-[\w-]+/g, 'sk-•••'),
          addContext: `Note: a secret in ${state.call.id}'s output was redacted.`,
        }
      : undefined,
  );
  h.hooks.postExecute.tap('change-notice', (state) =>
    state.call.name === 'write_note' && state.outcome.status === 'ok'
      ? { addContext: `The notebook changed: "${String(state.args.title)}" was written.` }
      : undefined,
  );
  return h;
}

async function step(h: Host, title: string, calls: StepCall[]): Promise<void> {
  console.log(heading(title));
  const { context } = await h.runStep({ calls });
  if (context)
    console.log(`${dim('context for the next model message:')}\n${context.parts.map((p) => `  ${dim('·')} ${p.text}`).join('\n')}`);
}

const withPerson = host(person);
await step(withPerson, '1. Allowed by policy, two reads in parallel (one redacted after execution)', [
  { id: 'call_1', name: 'read_note', args: '{"title":"todo"}' },
  { id: 'call_2', name: 'read_note', args: '{"title":"config"}' },
]);
await step(withPerson, '2. Asked and approved', [{ id: 'call_3', name: 'write_note', args: { title: 'todo', text: 'buy oat milk' } }]);
await step(withPerson, '3. Denied by a guard despite the approval', [{ id: 'call_4', name: 'delete_note', args: { title: 'important' } }]);
await step(withPerson, '4. A failing tool and a model mistake', [
  { id: 'call_5', name: 'sync_notes', args: {} },
  { id: 'call_6', name: 'read_note', args: '{"title": 42}' },
]);
await withPerson.close();

const headless = host(undefined);
await step(headless, '5. Asked with no approval provider (a headless run): denied', [
  { id: 'call_7', name: 'write_note', args: { title: 'todo', text: 'nothing' } },
]);
await headless.close();

console.log(`\n${bold('Session log')} (JSONL, one event a line): ${logPath}`);
