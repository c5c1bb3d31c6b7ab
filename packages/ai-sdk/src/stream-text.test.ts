import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { logProblems } from '@deepseek-ai/dsh-core/testing';
import { permissions } from '@deepseek-ai/dsh-permissions';
import { toolBash } from '@deepseek-ai/dsh-tool-bash';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { type ModelMessage, stepCountIs, streamText } from 'ai';
import { afterAll, expect, it } from 'vitest';
import { expectOneCallAndResultEach, loggedHost } from './fixtures/logged-host.js';
import { scriptedStreamModel } from './fixtures/scripted-model.js';
import { resultsOf, workspace } from './fixtures/workspace.js';
import { aiSdkApprovals, dshTools } from './index.js';

const ws = workspace();
afterAll(() => ws.remove());

it('streamText: runs the allowed call of a step, asks about the other, and runs it after the approval', async () => {
  const notes = ws.file('notes.txt', 'streamed notes\n');
  const marker = join(ws.dir, 'stream-marker');
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
  const dsh = dshTools(host, { approvals });
  const model = scriptedStreamModel([
    {
      calls: [
        { id: 'st1', name: 'read', input: { file_path: notes } },
        { id: 'st2', name: 'bash', input: { command: `touch '${marker}'` } },
      ],
    },
    { text: 'all done' },
  ]);
  const messages: ModelMessage[] = [{ role: 'user', content: 'go' }];
  const first = streamText({ model, tools: dsh.tools, prepareStep: dsh.prepareStep, messages, stopWhen: stepCountIs(4) });
  const content = await first.content;
  const request = content.find((p) => p.type === 'tool-approval-request');
  expect(request?.toolCall.toolCallId).toBe('st2');
  expect(content.find((p) => p.type === 'tool-result')).toMatchObject({ toolCallId: 'st1', output: { status: 'ok' } });
  expect(existsSync(marker)).toBe(false);

  messages.push(...(await first.response).messages, {
    role: 'tool',
    content: [{ type: 'tool-approval-response', approvalId: request?.approvalId as string, approved: true }],
  });
  const second = streamText({ model, tools: dsh.tools, prepareStep: dsh.prepareStep, messages, stopWhen: stepCountIs(4) });
  expect(await second.text).toBe('all done');
  expect(existsSync(marker)).toBe(true);
  expect(resultsOf(host.events.list())).toEqual([
    ['st1', 'ok'],
    ['st2', 'ok'],
  ]);
  await dsh.settled();
  await expectOneCallAndResultEach(host, ['st1', 'st2']);
  expect(logProblems(host.events.list())).toEqual([]);
});
