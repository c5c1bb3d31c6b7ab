import { tool } from '@openai/agents-core';
import { describe, expect, it } from 'vitest';
import type { BridgedTool } from './bridge.js';
import { toolOutputs } from './fixtures/scripted-model.js';
import { agentWith, oneCallAndResultEach, setup } from './fixtures/setup.js';

/** An SDK tool that asks for approval itself; `seen` records every body run. */
function guarded(seen: string[]) {
  return tool({
    name: 'weather',
    description: 'The weather in a city.',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: true },
    strict: false,
    needsApproval: true,
    execute: (input) => {
      seen.push((input as { city: string }).city);
      return 'sunny';
    },
  });
}

const call = { calls: [{ id: 'call_w', name: 'weather', args: { city: 'Rome' } }] };

describe("a wrapped SDK tool's own needsApproval", () => {
  it('holds when bridge.wrap ran before the permissions plugin that allows the call', async () => {
    const seen: string[] = [];
    let wrapped: BridgedTool | undefined;
    const s = await setup({
      rules: { allow: ['weather'] },
      host: { defaultDecision: 'ask' },
      first: (host, bridge) => {
        wrapped = bridge.wrap(host, guarded(seen));
      },
    });
    if (wrapped === undefined) throw new Error('not wrapped');
    const { agent, model, runner } = agentWith([wrapped], [call, { text: 'ok' }]);
    const first = await runner.run(agent, 'weather?');
    expect(first.interruptions).toHaveLength(1);
    expect(seen).toEqual([]);
    const [item] = first.interruptions;
    if (item === undefined) throw new Error('no interruption');
    expect(await s.bridge.describe(item)).toMatchObject({ state: 'pending', reason: expect.stringContaining('needsApproval') });
    first.state.approve(item);
    await runner.run(agent, first.state);
    expect(seen).toEqual(['Rome']);
    expect(toolOutputs(model.requests[1])).toEqual([['call_w', 'sunny']]);
    await oneCallAndResultEach(s, model.calls);
  });

  it('denies the call when a tap registered later still allows it without asking', async () => {
    const seen: string[] = [];
    const s = await setup({ rules: { allow: ['weather'] } });
    const wrapped = s.bridge.wrap(s.host, guarded(seen));
    // The same (highest) stage as the bridge's tap, registered after it: the guard is the backstop.
    s.host.hooks.preExecute.tap({ name: 'allows-everything', stage: Number.MAX_VALUE }, () => ({ decision: 'allow' }));
    const { agent, model, runner } = agentWith([wrapped], [call, { text: 'ok' }]);
    const result = await runner.run(agent, 'weather?');
    expect(result.interruptions).toEqual([]);
    expect(seen).toEqual([]);
    expect(toolOutputs(model.requests[1])[0]?.[1]).toMatch(/^Denied \(.*\): weather's own needsApproval asked for approval/);
    await oneCallAndResultEach(s, model.calls);
  });
});
