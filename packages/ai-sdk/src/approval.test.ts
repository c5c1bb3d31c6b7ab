import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Host } from '@deepseek-ai/dsh-core';
import { logProblems } from '@deepseek-ai/dsh-core/testing';
import { permissions } from '@deepseek-ai/dsh-permissions';
import { toolBash } from '@deepseek-ai/dsh-tool-bash';
import { generateText, type ModelMessage, stepCountIs } from 'ai';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { addedMessages } from './fixtures/conversation.js';
import { expectOneCallAndResultEach, loggedHost } from './fixtures/logged-host.js';
import { promptText, scriptedModel } from './fixtures/scripted-model.js';
import { resultsOf, workspace } from './fixtures/workspace.js';
import { aiSdkApprovals, dshTools } from './index.js';

const ws = workspace();
afterAll(() => ws.remove());

async function setup() {
  const approvals = aiSdkApprovals();
  const perms = permissions({
    projectDir: ws.dir,
    homeDir: ws.dir,
    settingsFiles: false,
    grantsFile: false,
    rules: { ask: ['Bash(touch *)'] },
  });
  const host = await loggedHost({ approval: perms.approval(approvals.provider) });
  await host.use(toolBash({ cwd: ws.dir }));
  await host.use(perms);
  return { host, dsh: dshTools(host, { approvals }) };
}

function approvalRequests(content: readonly { type: string }[]) {
  return content.filter(
    (p): p is { type: 'tool-approval-request'; approvalId: string; toolCall: { toolCallId: string } } & typeof p =>
      p.type === 'tool-approval-request',
  );
}

async function settled(host: Host, id: string) {
  await vi.waitFor(() => expect(resultsOf(host.events.list()).some(([call]) => call === id)).toBe(true), { timeout: 30_000 });
}

describe("dsh's ask as the SDK's tool approval", () => {
  it('stops the loop with a tool-approval-request, runs the call once the user approves, and asks again for the next call', async () => {
    const { host, dsh } = await setup();
    const marker = join(ws.dir, 'approved-marker');
    const model = scriptedModel([
      { calls: [{ id: 'p1', name: 'bash', input: { command: `touch '${marker}'` } }] },
      { text: 'made it' },
      { calls: [{ id: 'p2', name: 'bash', input: { command: `touch '${marker}-2'` } }] },
    ]);
    const messages: ModelMessage[] = [{ role: 'user', content: 'make the marker' }];
    const first = await generateText({ model, tools: dsh.tools, prepareStep: dsh.prepareStep, messages, stopWhen: stepCountIs(4) });

    const [request] = approvalRequests(first.content);
    expect(request?.toolCall.toolCallId).toBe('p1');
    expect(existsSync(marker)).toBe(false);
    expect(dsh.pendingApprovals()).toEqual([
      expect.objectContaining({ toolCallId: 'p1', toolName: 'bash', reason: expect.stringContaining('touch') }),
    ]);
    expect(resultsOf(host.events.list())).toEqual([]);

    messages.push(...addedMessages(first), {
      role: 'tool',
      content: [{ type: 'tool-approval-response', approvalId: request?.approvalId as string, approved: true }],
    });
    const second = await generateText({ model, tools: dsh.tools, prepareStep: dsh.prepareStep, messages, stopWhen: stepCountIs(4) });
    expect(existsSync(marker)).toBe(true);
    expect(second.text).toBe('made it');
    expect(dsh.pendingApprovals()).toEqual([]);
    const answers = host.events.list().filter((e) => e.type === 'approval/answer');
    expect(answers.map((e) => (e.data as { answer: string }).answer)).toEqual(['allowed-once']);

    // The approval covered that one call: the next one is asked about again.
    messages.push(...addedMessages(second), { role: 'user', content: 'once more' });
    const third = await generateText({ model, tools: dsh.tools, prepareStep: dsh.prepareStep, messages, stopWhen: stepCountIs(4) });
    expect(approvalRequests(third.content).map((r) => r.toolCall.toolCallId)).toEqual(['p2']);
    expect(existsSync(`${marker}-2`)).toBe(false);
    dsh.abandon();
    await settled(host, 'p2');
    expect(resultsOf(host.events.list())).toEqual([
      ['p1', 'ok'],
      ['p2', 'denied'],
    ]);
    await expectOneCallAndResultEach(host, ['p1', 'p2']);
    expect(logProblems(host.events.list())).toEqual([]);
  });

  it('turns a denial into a denied result the model reads, never runs the body, and keeps the loop going', async () => {
    const { host, dsh } = await setup();
    const marker = join(ws.dir, 'denied-marker');
    const model = scriptedModel([
      { calls: [{ id: 'n1', name: 'bash', input: { command: `touch '${marker}'` } }] },
      { text: 'ok, I will not' },
    ]);
    const messages: ModelMessage[] = [{ role: 'user', content: 'make the marker' }];
    const first = await generateText({ model, tools: dsh.tools, prepareStep: dsh.prepareStep, messages, stopWhen: stepCountIs(4) });
    const [request] = approvalRequests(first.content);

    messages.push(...addedMessages(first), {
      role: 'tool',
      content: [
        { type: 'tool-approval-response', approvalId: request?.approvalId as string, approved: false, reason: 'not in this folder' },
      ],
    });
    const second = await generateText({ model, tools: dsh.tools, prepareStep: dsh.prepareStep, messages, stopWhen: stepCountIs(4) });
    expect(second.text).toBe('ok, I will not');
    expect(promptText(model, 1)).toContain('not in this folder');
    await settled(host, 'n1');
    const result = host.events.list().find((e) => e.type === 'tool/result');
    expect(result?.data).toMatchObject({
      outcome: { status: 'denied', stage: 'approval', reason: expect.stringContaining('not in this folder') },
    });
    expect(existsSync(marker)).toBe(false);
    await expectOneCallAndResultEach(host, ['n1']);
    expect(logProblems(host.events.list())).toEqual([]);
  });

  it('lets the host provider answer inline when no aiSdkApprovals bridge is given', async () => {
    const perms = permissions({
      projectDir: ws.dir,
      homeDir: ws.dir,
      settingsFiles: false,
      grantsFile: false,
      rules: { ask: ['Bash(touch *)'] },
    });
    const asked: string[] = [];
    const host = await loggedHost({
      approval: perms.approval((request) => {
        asked.push(request.call.id);
        return 'allowed-once';
      }),
    });
    await host.use(toolBash({ cwd: ws.dir }));
    await host.use(perms);
    const dsh = dshTools(host);
    const marker = join(ws.dir, 'inline-marker');
    const model = scriptedModel([{ calls: [{ id: 'i1', name: 'bash', input: { command: `touch '${marker}'` } }] }, { text: 'ok' }]);
    const result = await generateText({ model, tools: dsh.tools, prompt: 'go', stopWhen: stepCountIs(4) });
    expect(approvalRequests(result.content)).toEqual([]);
    expect(asked).toEqual(['i1']);
    expect(existsSync(marker)).toBe(true);
    await dsh.settled();
    await expectOneCallAndResultEach(host, ['i1']);
  });
});
