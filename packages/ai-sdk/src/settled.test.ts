import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { permissions } from '@deepseek-ai/dsh-permissions';
import { toolBash } from '@deepseek-ai/dsh-tool-bash';
import { generateText, type ModelMessage, stepCountIs } from 'ai';
import { afterAll, expect, it } from 'vitest';
import { addedMessages } from './fixtures/conversation.js';
import { eventsOnDisk, expectOneCallAndResultEach, loggedHost, resultsOnDisk } from './fixtures/logged-host.js';
import { scriptedModel } from './fixtures/scripted-model.js';
import { workspace } from './fixtures/workspace.js';
import { aiSdkApprovals, dshTools } from './index.js';

const ws = workspace();
afterAll(() => ws.remove());

async function askingHost() {
  const approvals = aiSdkApprovals();
  const perms = permissions({
    projectDir: ws.dir,
    homeDir: ws.dir,
    settingsFiles: false,
    grantsFile: false,
    rules: { ask: ['Bash(touch *)'], allow: ['Bash(echo *)'] },
  });
  const host = await loggedHost({ approval: perms.approval(approvals.provider) });
  await host.use(toolBash({ cwd: ws.dir }));
  await host.use(perms);
  return { host, dsh: dshTools(host, { approvals }) };
}

it('settled(): once it resolves, the JSONL log on disk holds the result of every call, a denied one included', async () => {
  const { host, dsh } = await askingHost();
  const marker = join(ws.dir, 'denied-marker');
  const model = scriptedModel([
    {
      calls: [
        { id: 'k1', name: 'bash', input: { command: 'echo allowed' } },
        { id: 'k2', name: 'bash', input: { command: `touch '${marker}'` } },
      ],
    },
    { text: 'fine, I will not' },
  ]);
  const messages: ModelMessage[] = [{ role: 'user', content: 'go' }];
  const first = await generateText({ model, tools: dsh.tools, prepareStep: dsh.prepareStep, messages, stopWhen: stepCountIs(4) });
  const request = first.content.find((part) => part.type === 'tool-approval-request');
  messages.push(...addedMessages(first), {
    role: 'tool',
    content: [{ type: 'tool-approval-response', approvalId: request?.approvalId as string, approved: false, reason: 'no' }],
  });
  await generateText({ model, tools: dsh.tools, prepareStep: dsh.prepareStep, messages, stopWhen: stepCountIs(4) });

  // The denied call's result is written after generateText returns; settled() waits for it and for the sink.
  await dsh.settled();
  expect(resultsOnDisk(host)).toEqual([
    ['k1', 'ok'],
    ['k2', 'denied'],
  ]);
  expect(existsSync(marker)).toBe(false);
  await expectOneCallAndResultEach(host, ['k1', 'k2']);
});

it('settled(): does not wait for a call that waits for the user, and waits for it once it is abandoned', async () => {
  const { host, dsh } = await askingHost();
  const model = scriptedModel([{ calls: [{ id: 'q1', name: 'bash', input: { command: `touch '${join(ws.dir, 'q')}'` } }] }]);
  await generateText({ model, tools: dsh.tools, prepareStep: dsh.prepareStep, prompt: 'go', stopWhen: stepCountIs(4) });

  await dsh.settled();
  expect(dsh.pendingApprovals().map((p) => p.toolCallId)).toEqual(['q1']);
  expect(eventsOnDisk(host).filter((e) => e.type === 'tool/call' && e.call === 'q1')).toHaveLength(1);
  expect(resultsOnDisk(host)).toEqual([]);

  dsh.abandon('the user left');
  await dsh.settled();
  expect(resultsOnDisk(host)).toEqual([['q1', 'denied']]);
  await expectOneCallAndResultEach(host, ['q1']);
});
