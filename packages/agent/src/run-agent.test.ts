import { defineTool, type Host, z } from '@deepseek-ai/dsh-core';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { describe, expect, it } from 'vitest';
import type { AgentMessage } from './messages.js';
import type { AssistantTurn, Model, ModelRequest } from './model.js';
import { checkHistory } from './options.js';
import { runAgent } from './run-agent.js';

const task: AgentMessage[] = [{ role: 'user', text: 'go' }];

/** Tools for loop tests: `echo` returns its input, `wait` runs until its call is aborted. */
async function loopHost(onWait?: () => void): Promise<Host> {
  const { host } = await createTestHost();
  host.tools.register(
    defineTool({
      name: 'echo',
      description: 'Echo',
      input: z.object({ value: z.unknown() }),
      parallel: true,
      execute: (args) => args.value,
    }),
  );
  host.tools.register(
    defineTool({
      name: 'wait',
      description: 'Waits until cancelled',
      input: z.object({}),
      execute: (_args, ctx) =>
        new Promise((_resolve, reject) => {
          onWait?.();
          ctx.signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true });
        }),
    }),
  );
  return host;
}

/** A model that plays turns in order and records each request. */
function scripted(turns: readonly Partial<AssistantTurn>[]): Model & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  let n = 0;
  const model = async (request: ModelRequest) => {
    requests.push(request);
    const turn = turns[n++] ?? { text: 'done' };
    return { text: '', calls: [], stop: turn.calls?.length ? 'tool-use' : 'end', ...turn } as AssistantTurn;
  };
  return Object.assign(model, { requests });
}

const echo = (id: string, value: unknown = id) => ({ id, name: 'echo', args: JSON.stringify({ value }) });

describe('runAgent', () => {
  it('refuses bad options naming the field', async () => {
    const host = await loopHost();
    await expect(runAgent({ host, model: scripted([]), messages: task, maxTurns: 0 })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('maxTurns'),
    });
    await expect(runAgent({ host, model: scripted([]), messages: [] })).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
  });

  it('refuses a history that leaves a call without its result', async () => {
    const host = await loopHost();
    const messages: AgentMessage[] = [...task, { role: 'assistant', text: '', calls: [echo('a')] }];
    await expect(runAgent({ host, model: scripted([]), messages })).rejects.toMatchObject({ code: 'AGENT_INVALID_HISTORY' });
  });

  it('stops at maxTurns after answering the last calls', async () => {
    const host = await loopHost();
    const model = scripted([{ calls: [echo('a')] }, { calls: [echo('b')] }, { calls: [echo('c')] }]);
    const result = await runAgent({ host, model, messages: task, maxTurns: 2 });
    expect(result).toMatchObject({ stop: 'max-turns', turns: 2 });
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool']);
    expect(() => checkHistory(result.messages)).not.toThrow();
  });

  it('ends on an empty turn without adding it to the history', async () => {
    const host = await loopHost();
    const result = await runAgent({ host, model: scripted([{ text: '' }]), messages: task });
    expect(result).toMatchObject({ stop: 'empty-turn', turns: 1, messages: task });
  });

  it('ends with model-error on a malformed turn or a throwing model', async () => {
    const host = await loopHost();
    const bad = await runAgent({ host, model: scripted([{ calls: [{ id: '', name: 'echo', args: '{}' }] }]), messages: task });
    expect(bad).toMatchObject({
      stop: 'model-error',
      error: { code: 'AGENT_MODEL_FAILED', message: expect.stringContaining('calls.0.id') },
    });
    const throwing: Model = async () => {
      throw new Error('503 overloaded');
    };
    const failed = await runAgent({ host, model: throwing, messages: task });
    expect(failed).toMatchObject({ stop: 'model-error', turns: 0, error: { message: '503 overloaded' }, messages: task });
  });

  it('answers both calls that share an id with DUPLICATE_CALL_ID', async () => {
    const host = await loopHost();
    const result = await runAgent({ host, model: scripted([{ calls: [echo('x', 1), echo('x', 2)] }]), messages: task });
    const tool = result.messages[2];
    expect(tool?.role === 'tool' && tool.results.map((r) => r.content)).toEqual([
      expect.stringMatching(/^Error \(DUPLICATE_CALL_ID\)/),
      expect.stringMatching(/^Error \(DUPLICATE_CALL_ID\)/),
    ]);
  });

  it('writes large integers and bigints exactly in results', async () => {
    const host = await loopHost();
    const result = await runAgent({
      host,
      model: scripted([{ calls: [{ id: 'n', name: 'echo', args: '{"value":{"big":12345678901234567890123}}' }] }]),
      messages: task,
    });
    const tool = result.messages[2];
    expect(tool?.role === 'tool' && tool.results[0]?.content).toBe('{"big":12345678901234567890123}');
  });

  it("puts the step's additional context after the results", async () => {
    const host = await loopHost();
    host.hooks.postExecute.tap('test/context', () => ({ addContext: 'mind the tests' }));
    const model = scripted([{ calls: [echo('a'), echo('b')] }]);
    const result = await runAgent({ host, model, messages: task });
    expect(result.messages[2]).toMatchObject({ role: 'tool', context: 'mind the tests\n\nmind the tests' });
    expect(model.requests[1]?.messages[2]).toMatchObject({ role: 'tool', context: expect.any(String) });
  });

  it('answers every call when aborted while a tool runs, and stops', async () => {
    const controller = new AbortController();
    const host = await loopHost(() => controller.abort());
    const model = scripted([{ calls: [echo('a'), { id: 'w', name: 'wait', args: '{}' }, echo('c')] }, { text: 'never' }]);
    const result = await runAgent({ host, model, messages: task, signal: controller.signal });
    expect(result).toMatchObject({ stop: 'aborted', turns: 1 });
    const tool = result.messages[2];
    expect(tool?.role === 'tool' && tool.results.map((r) => [r.id, r.status])).toEqual([
      ['a', 'ok'],
      ['w', 'error'],
      ['c', 'error'],
    ]);
    expect(tool?.role === 'tool' && tool.results[2]?.content).toMatch(/ABORTED_BEFORE_DISPATCH/);
    expect(model.requests).toHaveLength(1);
  });

  it('does not call the model when the signal has already fired', async () => {
    const host = await loopHost();
    const model = scripted([]);
    const result = await runAgent({ host, model, messages: task, signal: AbortSignal.abort() });
    expect(result).toMatchObject({ stop: 'aborted', turns: 0 });
    expect(model.requests).toHaveLength(0);
  });

  it('logs a nested loop under <parent>:agent:<n> ids, keeping the provider ids in its history', async () => {
    const host = await loopHost();
    const model = scripted([{ calls: [echo('p1'), echo('p2')] }, { calls: [echo('p1')] }]);
    const parent = { id: 'outer-7', token: 'tok-outer' };
    const result = await runAgent({ host, model, messages: task, parent });
    const logged = host.events.list().filter((e) => e.type === 'tool/call');
    expect(logged.map((e) => e.call)).toEqual(['outer-7:agent:0', 'outer-7:agent:1', 'outer-7:agent:2']);
    expect(logged.map((e) => [e.token, e.type === 'tool/call' && e.data.parent])).toEqual(Array(3).fill(['tok-outer', 'outer-7']));
    const turns = host.events.list().filter((e) => e.type === 'agent/turn');
    expect(turns[0]?.data).toMatchObject({ parent: 'outer-7', calls: [{ id: 'p1', callId: 'outer-7:agent:0' }, { id: 'p2' }] });
    const tool = result.messages[2];
    expect(tool?.role === 'tool' && tool.results.map((r) => r.id)).toEqual(['p1', 'p2']);
  });

  it('maps a provider id repeated within a nested turn to one logged id, so core refuses both', async () => {
    const host = await loopHost();
    const model = scripted([{ calls: [echo('d', 1), echo('d', 2)] }]);
    const result = await runAgent({ host, model, messages: task, callIdPrefix: 'sub:' });
    const tool = result.messages[2];
    expect(tool?.role === 'tool' && tool.results.map((r) => r.status)).toEqual(['error', 'error']);
  });

  it('follows the parent call signal', async () => {
    const controller = new AbortController();
    const host = await loopHost(() => controller.abort());
    const model = scripted([{ calls: [{ id: 'w', name: 'wait', args: '{}' }] }]);
    const result = await runAgent({ host, model, messages: task, parent: { id: 'o', token: 't', signal: controller.signal } });
    expect(result.stop).toBe('aborted');
  });
});
