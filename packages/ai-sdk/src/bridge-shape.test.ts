import { z } from '@deepseek-ai/dsh-core';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { generateText, type ModelMessage, stepCountIs, tool } from 'ai';
import { afterAll, describe, expect, it } from 'vitest';
import { addedMessages } from './fixtures/conversation.js';
import { expectOneCallAndResultEach, loggedHost, resultsOnDisk } from './fixtures/logged-host.js';
import { scriptedModel } from './fixtures/scripted-model.js';
import { workspace } from './fixtures/workspace.js';
import { AiSdkErrorCode, aiSdkApprovals, aiSdkBridge } from './index.js';

const ws = workspace();
afterAll(() => ws.remove());

/** An SDK tool that asks for approval itself; `seen` records every body run. */
function guarded(seen: string[], needsApproval: boolean | ((input: { city: string }) => boolean)) {
  return tool({
    description: 'the weather in a city',
    inputSchema: z.object({ city: z.string() }),
    needsApproval,
    execute: async ({ city }) => {
      seen.push(city);
      return 'sunny';
    },
  });
}

const weatherCall = (id: string, city: string) => ({ calls: [{ id, name: 'weather', input: { city } }] });
const requestsOf = (content: readonly { type: string }[]) =>
  content.filter((p): p is { type: 'tool-approval-request'; approvalId: string } & typeof p => p.type === 'tool-approval-request');

describe('aiSdkBridge(host, options)', () => {
  it('offers include minus exclude, and refuses a name the host lacks with AI_SDK_UNKNOWN_TOOL', async () => {
    const host = await loggedHost();
    await host.use(toolFs({ cwd: ws.dir }));
    const bridge = aiSdkBridge(host);
    expect(Object.keys(bridge.tools({ include: ['read', 'grep', 'write'], exclude: ['grep'] }))).toEqual(['read', 'write']);
    expect(() => bridge.tools({ exclude: ['nope'] })).toThrow(expect.objectContaining({ code: AiSdkErrorCode.UNKNOWN_TOOL }));
    expect(() => aiSdkBridge(host, { include: ['read'] } as never)).toThrow(
      expect.objectContaining({ code: AiSdkErrorCode.INVALID_OPTIONS }),
    );
  });
});

describe("a framework tool's own needsApproval", () => {
  it('is an ask even when the host would allow the call: the SDK asks the user, and the body runs once approved', async () => {
    const seen: string[] = [];
    const approvals = aiSdkApprovals();
    const host = await loggedHost({ approval: approvals.provider, defaultDecision: 'allow' });
    const bridge = aiSdkBridge(host, { approvals, tools: { weather: guarded(seen, true) } });
    const model = scriptedModel([weatherCall('w1', 'Oslo'), { text: 'done' }]);
    const messages: ModelMessage[] = [{ role: 'user', content: 'weather?' }];
    const options = { model, tools: bridge.tools(), prepareStep: bridge.prepareStep, stopWhen: stepCountIs(3) };
    const first = await generateText({ ...options, messages });
    const [request] = requestsOf(first.content);
    expect(request).toBeDefined();
    expect(seen).toEqual([]);
    expect(bridge.pendingApprovals()).toEqual([
      expect.objectContaining({ toolCallId: 'w1', reason: expect.stringContaining('needsApproval') }),
    ]);
    messages.push(...addedMessages(first), {
      role: 'tool',
      content: [{ type: 'tool-approval-response', approvalId: request?.approvalId as string, approved: true }],
    });
    const second = await generateText({ ...options, messages });
    expect(second.text).toBe('done');
    expect(seen).toEqual(['Oslo']);
    await expectOneCallAndResultEach(host, ['w1']);
  });

  it('denies the call when a tap registered later still allows it without asking', async () => {
    const seen: string[] = [];
    const host = await loggedHost({ defaultDecision: 'allow' });
    const bridge = aiSdkBridge(host, { tools: { weather: guarded(seen, true) } });
    // The same (highest) stage as the bridge's tap, registered after it: the guard is the backstop.
    host.hooks.preExecute.tap({ name: 'allows-everything', stage: Number.MAX_VALUE }, () => ({ decision: 'allow' }));
    const model = scriptedModel([weatherCall('w1', 'Oslo'), { text: 'done' }]);
    const result = await generateText({
      model,
      tools: bridge.tools(),
      prepareStep: bridge.prepareStep,
      prompt: 'go',
      stopWhen: stepCountIs(3),
    });
    expect(seen).toEqual([]);
    expect(result.steps[0]?.toolResults[0]?.output).toMatchObject({
      status: 'denied',
      reason: expect.stringContaining("weather's own needsApproval asked for approval"),
    });
    await bridge.settled();
    expect(resultsOnDisk(host).map(([call]) => call)).toEqual(['w1']);
  });

  it('lets the call run without asking when its needsApproval function says no', async () => {
    const seen: string[] = [];
    const host = await loggedHost({ defaultDecision: 'allow' });
    const bridge = aiSdkBridge(host, { tools: { weather: guarded(seen, ({ city }) => city === 'Atlantis') } });
    const model = scriptedModel([weatherCall('w1', 'Oslo'), { text: 'done' }]);
    const result = await generateText({ model, tools: bridge.tools(), prompt: 'go', stopWhen: stepCountIs(3) });
    expect(result.text).toBe('done');
    expect(seen).toEqual(['Oslo']);
    await expectOneCallAndResultEach(host, ['w1']);
  });
});
