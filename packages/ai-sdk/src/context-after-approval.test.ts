import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { logProblems } from '@deepseek-ai/dsh-core/testing';
import { hooksBridge } from '@deepseek-ai/dsh-hooks-bridge';
import { permissions } from '@deepseek-ai/dsh-permissions';
import { toolBash } from '@deepseek-ai/dsh-tool-bash';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { generateText, type ModelMessage, stepCountIs } from 'ai';
import { afterAll, expect, it } from 'vitest';
import { addedMessages } from './fixtures/conversation.js';
import { expectOneCallAndResultEach, loggedHost } from './fixtures/logged-host.js';
import { scriptedModel } from './fixtures/scripted-model.js';
import { workspace } from './fixtures/workspace.js';
import { aiSdkApprovals, dshTools } from './index.js';

const ws = workspace();
afterAll(() => ws.remove());

/** A PostToolUse hook script that adds `text` as context. */
function contextHook(name: string, text: string) {
  const script = ws.script(
    name,
    `cat > /dev/null; printf '%s' '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"${text}"}}'`,
  );
  return [{ type: 'command', command: script }];
}

it('keeps the next request valid when a step both asks for approval and adds context: the context follows every result of the step', async () => {
  const notes = ws.file('notes.txt', 'the notes\n');
  const marker = join(ws.dir, 'approved-marker');
  const approvals = aiSdkApprovals();
  const perms = permissions({
    projectDir: ws.dir,
    homeDir: ws.dir,
    settingsFiles: false,
    grantsFile: false,
    rules: { ask: ['Bash(touch *)'] },
  });
  const host = await loggedHost({ approval: perms.approval(approvals.provider) });
  await host.use(toolFs({ cwd: ws.dir }));
  await host.use(toolBash({ cwd: ws.dir }));
  await host.use(perms);
  await host.use(
    hooksBridge({
      projectDir: ws.dir,
      homeDir: ws.dir,
      userSettings: false,
      sources: [],
      hooks: {
        claude: {
          PostToolUse: [
            { matcher: 'Read', hooks: contextHook('read-context.sh', 'CONTEXT-AFTER-READ') },
            { matcher: 'Bash', hooks: contextHook('bash-context.sh', 'CONTEXT-AFTER-BASH') },
          ],
        },
      },
    }),
  );
  const dsh = dshTools(host, { approvals });
  const model = scriptedModel([
    {
      calls: [
        { id: 'r1', name: 'read', input: { file_path: notes } },
        { id: 'b1', name: 'bash', input: { command: `touch '${marker}'` } },
      ],
    },
    { text: 'both done' },
  ]);
  const messages: ModelMessage[] = [{ role: 'user', content: 'read the notes and make the marker' }];
  const first = await generateText({ model, tools: dsh.tools, prepareStep: dsh.prepareStep, messages, stopWhen: stepCountIs(4) });
  const request = first.content.find((part) => part.type === 'tool-approval-request');
  expect(request?.toolCall.toolCallId).toBe('b1');

  messages.push(...addedMessages(first), {
    role: 'tool',
    content: [{ type: 'tool-approval-response', approvalId: request?.approvalId as string, approved: true }],
  });
  // Before the fix the context went between the read's result and the approved call's: AI_MissingToolResultsError.
  const second = await generateText({ model, tools: dsh.tools, prepareStep: dsh.prepareStep, messages, stopWhen: stepCountIs(4) });
  expect(second.text).toBe('both done');
  expect(existsSync(marker)).toBe(true);

  const prompt = model.doGenerateCalls[1]?.prompt ?? [];
  const last = prompt.at(-1);
  expect(last?.role).toBe('user');
  expect(JSON.stringify(last)).toContain('CONTEXT-AFTER-READ');
  expect(JSON.stringify(last)).toContain('CONTEXT-AFTER-BASH');
  // Every result of the step comes before the context, and nothing but tool messages sits between the calls and their results.
  const assistant = prompt.findIndex((m) => m.role === 'assistant');
  expect(prompt.slice(assistant + 1, -1).every((m) => m.role === 'tool')).toBe(true);
  expect(JSON.stringify(prompt.slice(assistant + 1, -1))).toContain('the notes');
  expect(JSON.stringify(prompt.slice(0, -1))).not.toContain('CONTEXT-AFTER');

  await dsh.settled();
  await expectOneCallAndResultEach(host, ['r1', 'b1']);
  expect(logProblems(host.events.list())).toEqual([]);
});
