import { readFileSync } from 'node:fs';
import { createHost } from '@deepseek-ai/dsh-core';
import { logProblems } from '@deepseek-ai/dsh-core/testing';
import { tool } from '@openai/agents-core';
import { describe, expect, it } from 'vitest';
import { openaiAgents } from './bridge.js';
import { AgentsErrorCode } from './errors.js';
import { toolOutputs } from './fixtures/scripted-model.js';
import { agentWith, eventsOf, oneCallAndResultEach, setup } from './fixtures/setup.js';

/** An SDK tool the framework defines itself, with a JSON Schema input; `seen` records every body run. */
function weather(seen: string[], needsApproval = false) {
  return tool({
    name: 'weather',
    description: 'The weather in a city.',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: true,
    },
    strict: false,
    needsApproval,
    execute: (input) => {
      const { city } = input as { city: string };
      seen.push(city);
      return `sunny in ${city}`;
    },
  });
}

describe('a tool the SDK defines itself, wrapped by bridge.wrap', () => {
  it('runs through the pipeline: the hook sees it and its result is in the session log', async () => {
    const seen: string[] = [];
    // Permission rules name it as they name any tool.
    const s = await setup({ rules: { allow: ['weather'] } });
    const wrapped = s.bridge.wrap(s.host, weather(seen));
    const { agent, model, runner } = agentWith(
      [wrapped],
      [{ calls: [{ id: 'call_w', name: 'weather', args: { city: 'Oslo' } }] }, { text: 'ok' }],
    );
    await runner.run(agent, 'weather?');
    expect(seen).toEqual(['Oslo']);
    expect(toolOutputs(model.requests[1])).toEqual([['call_w', 'sunny in Oslo']]);
    const payload = JSON.parse(readFileSync(s.hookLog, 'utf8').trim());
    expect(payload).toMatchObject({ tool_name: 'weather', tool_input: { city: 'Oslo' } });
    await oneCallAndResultEach(s, model.calls);
    expect(logProblems(s.host.events.list())).toEqual([]);
  });

  it('is stopped by a deny rule and by a blocking hook before its execute runs', async () => {
    const seen: string[] = [];
    const s = await setup({ rules: { deny: ['weather'] } });
    const wrapped = s.bridge.wrap(s.host, weather(seen));
    const { agent, model, runner } = agentWith(
      [wrapped],
      [{ calls: [{ id: 'call_w', name: 'weather', args: { city: 'Oslo' } }] }, { text: 'ok' }],
    );
    await runner.run(agent, 'weather?');
    expect(seen).toEqual([]);
    expect(toolOutputs(model.requests[1])[0]?.[1]).toMatch(/^Denied \(PRE_EXECUTE_DENIED\)/);
    await oneCallAndResultEach(s, model.calls);

    const hooked = await setup({ rules: { allow: ['weather'] } });
    const again = hooked.bridge.wrap(hooked.host, weather(seen));
    const second = agentWith([again], [{ calls: [{ id: 'call_f', name: 'weather', args: { city: 'FORBIDDEN' } }] }, { text: 'ok' }]);
    await second.runner.run(second.agent, 'weather?');
    expect(seen).toEqual([]);
    expect(toolOutputs(second.model.requests[1])[0]?.[1]).toContain('the test hook blocks FORBIDDEN');
    await oneCallAndResultEach(hooked, second.model.calls);
  });

  it("keeps the tool's own needsApproval: an allow rule does not skip it", async () => {
    const seen: string[] = [];
    const s = await setup({ rules: { allow: ['weather'] } });
    const wrapped = s.bridge.wrap(s.host, weather(seen, true));
    const { agent, model, runner } = agentWith(
      [wrapped],
      [{ calls: [{ id: 'call_w', name: 'weather', args: { city: 'Rome' } }] }, { text: 'ok' }],
    );
    const first = await runner.run(agent, 'weather?');
    expect(first.interruptions).toHaveLength(1);
    expect(seen).toEqual([]);
    const [item] = first.interruptions;
    if (item === undefined) throw new Error('no interruption');
    expect(await s.bridge.describe(item)).toMatchObject({ reason: expect.stringContaining('needsApproval') });
    first.state.approve(item);
    await runner.run(agent, first.state);
    expect(seen).toEqual(['Rome']);
    await oneCallAndResultEach(s, model.calls);
  });

  it("hands its execute the call's signal, which aborts when dsh stops the call", async () => {
    let aborted: unknown;
    const waits = tool({
      name: 'waits',
      description: 'Waits until its signal aborts.',
      parameters: { type: 'object', properties: {}, required: [], additionalProperties: true },
      strict: false,
      execute: (_input, _context, details) =>
        new Promise((_resolve, reject) => {
          const signal = details?.signal;
          if (!(signal instanceof AbortSignal)) return reject(new Error('no signal'));
          signal.addEventListener('abort', () => {
            aborted = signal.reason;
            reject(signal.reason);
          });
        }),
    });
    const s = await setup({ rules: { allow: ['waits'] }, host: { dispatchTimeoutMs: 50 } });
    const wrapped = s.bridge.wrap(s.host, waits);
    const { agent, model, runner } = agentWith([wrapped], [{ calls: [{ id: 'call_x', name: 'waits', args: {} }] }, { text: 'ok' }]);
    await runner.run(agent, 'wait');
    expect(aborted).toMatchObject({ code: 'TOOL_TIMEOUT' });
    await oneCallAndResultEach(s, model.calls);
  });

  it('refuses what is not a function tool, and a second host', async () => {
    const s = await setup({});
    expect(() => s.bridge.wrap(s.host, { type: 'hosted_tool', name: 'web_search' } as never)).toThrow(
      expect.objectContaining({ code: AgentsErrorCode.TOOL_NOT_WRAPPABLE }),
    );
    expect(() => s.bridge.tools(createHost())).toThrow(expect.objectContaining({ code: AgentsErrorCode.HOST_MISMATCH }));
    expect(() => s.bridge.tools(s.host, { names: ['read', 'nope'] })).toThrow(
      expect.objectContaining({ code: AgentsErrorCode.UNKNOWN_TOOL, message: expect.stringContaining('nope') }),
    );
    expect(() => openaiAgents({ store: {} as never })).toThrow(
      expect.objectContaining({ code: 'AGENTS_INVALID_OPTIONS', message: expect.stringContaining('store') }),
    );
    expect(() => openaiAgents({ extra: 1 } as never)).toThrow(expect.objectContaining({ code: 'AGENTS_INVALID_OPTIONS' }));
    expect(s.bridge.tools(s.host, { names: ['read'] }).map((t) => t.name)).toEqual(['read']);
  });
});

describe('step context', () => {
  it('goes to onContext and the session log, never into the output; a throwing listener is reported', async () => {
    const { createHost, defineTool, z } = await import('@deepseek-ai/dsh-core');
    const received: [string, string][] = [];
    for (const listener of [
      (context: { text: string }, call: { id: string }) => {
        received.push([call.id, context.text]);
      },
      () => {
        throw new Error('listener broke');
      },
    ]) {
      const bridge = openaiAgents({ onContext: listener });
      const host = createHost({ approval: bridge.approval, defaultDecision: 'allow' });
      host.tools.register(defineTool({ name: 'noop', description: 'Does nothing.', input: z.object({}), execute: () => 'plain output' }));
      host.hooks.postExecute.tap('note', () => ({ addContext: 'remember the note' }));
      const { agent, model, runner } = agentWith(bridge.tools(host), [
        { calls: [{ id: 'call_n', name: 'noop', args: {} }] },
        { text: 'ok' },
      ]);
      await runner.run(agent, 'go');
      expect(toolOutputs(model.requests[1])).toEqual([['call_n', 'plain output']]);
      expect(eventsOf(host, 'context/message')).toHaveLength(1);
      if (received.length === 0) throw new Error('onContext was not called');
      if (listener.length === 0) expect(bridge.problems().map((e) => e.message)).toEqual(['listener broke']);
    }
    expect(received).toEqual([['call_n', expect.stringContaining('remember the note')]]);
  });
});
