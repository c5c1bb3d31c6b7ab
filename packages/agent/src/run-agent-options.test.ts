import { defineTool, type Host, z } from '@deepseek-ai/dsh-core';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { describe, expect, it } from 'vitest';
import { compactHistory, estimateTokens, type RequestDraft } from './before-request.js';
import type { AgentMessage } from './messages.js';
import type { AssistantTurn, Model, ModelRequest } from './model.js';
import { checkHistory } from './options.js';
import { runAgent } from './run-agent.js';

const task: AgentMessage[] = [{ role: 'user', text: 'go' }];

async function toolHost(): Promise<Host> {
  const { host } = await createTestHost();
  for (const name of ['alpha', 'beta', 'gamma']) {
    host.tools.register(defineTool({ name, description: name, input: z.object({}), parallel: true, execute: () => name }));
  }
  return host;
}

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

const call = (id: string, name: string) => ({ id, name, args: '{}' });

describe('runAgent tools and toolChoice', () => {
  it('offers the tools a filter keeps and passes the choice to the model', async () => {
    const host = await toolHost();
    const model = scripted([{ text: 'ok' }]);
    await runAgent({ host, model, messages: task, tools: (t) => t.name !== 'beta', toolChoice: { tool: 'gamma' } });
    expect(model.requests[0]?.tools.map((t) => t.name)).toEqual(['alpha', 'gamma']);
    expect(model.requests[0]?.toolChoice).toEqual({ tool: 'gamma' });
  });

  it('refuses an unregistered tool name and a chosen tool that is not offered, before any request', async () => {
    const host = await toolHost();
    const model = scripted([]);
    await expect(runAgent({ host, model, messages: task, tools: ['alpha', 'nope'] })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('"nope"'),
    });
    await expect(runAgent({ host, model, messages: task, tools: ['alpha'], toolChoice: { tool: 'beta' } })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('toolChoice'),
    });
    await expect(runAgent({ host, model, messages: task, toolChoice: 'sometimes' as never })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
    });
    expect(model.requests).toHaveLength(0);
  });

  it('denies every call under toolChoice none, and a call of another tool than the chosen one', async () => {
    const host = await toolHost();
    const none = await runAgent({ host, model: scripted([{ calls: [call('a', 'alpha')] }]), messages: task, toolChoice: 'none' });
    expect(none.messages[2]).toMatchObject({
      role: 'tool',
      results: [{ status: 'denied', content: expect.stringContaining('AGENT_TOOL_NOT_OFFERED') }],
    });
    const one = await runAgent({
      host,
      model: scripted([{ calls: [call('a', 'alpha'), call('b', 'beta')] }]),
      messages: task,
      toolChoice: { tool: 'beta' },
    });
    const tool = one.messages[2];
    expect(tool?.role === 'tool' && tool.results.map((r) => r.status)).toEqual(['denied', 'ok']);
  });

  it('lets the calls of a later, wider turn run: the narrowing lasts one step', async () => {
    const host = await toolHost();
    const model = scripted([{ calls: [call('a', 'alpha')] }, { calls: [call('b', 'alpha')] }]);
    const result = await runAgent({
      host,
      model,
      messages: task,
      beforeRequest: ({ turn }) => (turn === 1 ? { tools: ['beta'] } : undefined),
    });
    const statuses = result.messages.flatMap((m) => (m.role === 'tool' ? m.results.map((r) => r.status) : []));
    expect(statuses).toEqual(['denied', 'ok']);
  });
});

describe('runAgent beforeRequest', () => {
  it('sees the turn, the history, its token estimate and the offered tools', async () => {
    const host = await toolHost();
    const drafts: RequestDraft[] = [];
    await runAgent({
      host,
      model: scripted([{ calls: [call('a', 'alpha')] }]),
      messages: task,
      system: ['You are terse.', 'Project rules.'],
      tools: ['alpha'],
      beforeRequest: (draft) => {
        drafts.push(draft);
        return undefined;
      },
    });
    expect(drafts.map((d) => [d.turn, d.messages.length, d.tools.map((t) => t.name)])).toEqual([
      [1, 1, ['alpha']],
      [2, 3, ['alpha']],
    ]);
    expect(drafts[0]?.system).toEqual(['You are terse.', 'Project rules.']);
    expect(drafts[1]?.tokens).toBeGreaterThan(drafts[0]?.tokens ?? Number.POSITIVE_INFINITY);
  });

  it('keeps a replacement history for the rest of the run', async () => {
    const host = await toolHost();
    const model = scripted([{ text: 'short' }]);
    const summary: AgentMessage[] = [{ role: 'user', text: 'Summary of earlier work. Go on.' }];
    const result = await runAgent({
      host,
      model,
      messages: [...task, { role: 'assistant', text: 'long', calls: [] }, ...task],
      beforeRequest: () => ({ messages: summary }),
    });
    expect(model.requests[0]?.messages).toEqual(summary);
    expect(result.messages).toEqual([...summary, { role: 'assistant', text: 'short', calls: [], stop: 'end' }]);
  });

  it('ends with hook-error when the hook throws or breaks the history, without asking the model', async () => {
    const host = await toolHost();
    const model = scripted([]);
    const thrown = await runAgent({
      host,
      model,
      messages: task,
      beforeRequest: () => {
        throw new Error('budget service down');
      },
    });
    expect(thrown).toMatchObject({
      stop: 'hook-error',
      turns: 0,
      messages: task,
      error: { code: 'AGENT_HOOK_FAILED', message: expect.stringContaining('budget service down') },
    });
    const orphan: AgentMessage[] = [...task, { role: 'assistant', text: '', calls: [call('x', 'alpha')] }];
    const broken = await runAgent({ host, model, messages: task, beforeRequest: () => ({ messages: orphan }) });
    expect(broken).toMatchObject({ stop: 'hook-error', error: { message: expect.stringContaining('exactly one result') } });
    const badTools = await runAgent({ host, model, messages: task, beforeRequest: () => ({ tools: ['zeta'] }) });
    expect(badTools).toMatchObject({ stop: 'hook-error', error: { message: expect.stringContaining('"zeta"') } });
    expect(model.requests).toHaveLength(0);
  });
});

describe('compactHistory', () => {
  /** A task, then `n` answered turns of about 1000 characters each. */
  function longHistory(n: number): AgentMessage[] {
    const messages: AgentMessage[] = [{ role: 'user', text: 'the task' }];
    for (let i = 0; i < n; i++) {
      messages.push({ role: 'assistant', text: `step ${i}`, calls: [call(`c${i}`, 'alpha')] });
      messages.push({ role: 'tool', results: [{ id: `c${i}`, name: 'alpha', status: 'ok', content: 'x'.repeat(1000), isError: false }] });
    }
    return messages;
  }
  const draftOf = (messages: AgentMessage[]): RequestDraft => ({ turn: 1, messages, tokens: estimateTokens(messages), tools: [] });

  it('drops the oldest turns with their results, keeping the task and the newest messages', async () => {
    const messages = longHistory(20);
    const changes = await compactHistory({ maxTokens: 2000, keepLast: 4 })(draftOf(messages));
    const kept = changes?.messages ?? [];
    expect(kept[0]).toEqual(messages[0]);
    expect(kept.slice(-4)).toEqual(messages.slice(-4));
    expect(estimateTokens(kept)).toBeLessThanOrEqual(2000 + estimateTokens(messages.slice(-4)));
    expect(kept.length).toBeLessThan(messages.length);
    expect(() => checkHistory(kept)).not.toThrow();
  });

  it('changes nothing under the budget or when only protected messages are left', async () => {
    expect(await compactHistory({ maxTokens: 1_000_000 })(draftOf(longHistory(3)))).toBeUndefined();
    expect(await compactHistory({ maxTokens: 1, keepLast: 100 })(draftOf(longHistory(3)))).toBeUndefined();
  });

  it('counts an image part as a fixed number of tokens, not its base64 length', () => {
    const image = { type: 'image', mediaType: 'image/png', data: 'A'.repeat(400_000) };
    expect(estimateTokens([image])).toBeLessThan(2000);
  });

  it('runs as the loop hook: the model gets a compacted history whose calls all have results', async () => {
    const host = await toolHost();
    const model = scripted([{ text: 'done' }]);
    await runAgent({ host, model, messages: longHistory(30), beforeRequest: compactHistory({ maxTokens: 3000 }) });
    const sent = model.requests[0]?.messages ?? [];
    expect(sent.length).toBeLessThan(61);
    expect(() => checkHistory(sent)).not.toThrow();
  });
});

describe('runAgent retries', () => {
  it('ends as aborted when the signal fires during the wait before a retry', async () => {
    const host = await toolHost();
    const controller = new AbortController();
    let calls = 0;
    const model: Model = async () => {
      calls += 1;
      throw Object.assign(new Error('503 busy'), { status: 503, headers: { 'retry-after': '300' } });
    };
    host.events.subscribe((e) => {
      if (e.type === 'agent/model-error') controller.abort();
    });
    const result = await runAgent({ host, model, messages: task, signal: controller.signal, retry: { maxDelayMs: 600_000 } });
    expect(result).toMatchObject({ stop: 'aborted', turns: 0 });
    expect(calls).toBe(1);
  });

  it('does not retry with retry: false, nor a malformed turn', async () => {
    const host = await toolHost();
    let calls = 0;
    const failing: Model = async () => {
      calls += 1;
      throw Object.assign(new Error('503'), { status: 503 });
    };
    const once = await runAgent({ host, model: failing, messages: task, retry: false });
    expect(once).toMatchObject({ stop: 'model-error', error: { retryable: true, attempts: 1 } });
    expect(calls).toBe(1);
    const bad = await runAgent({ host, model: scripted([{ stop: 'maybe' as never }]), messages: task });
    expect(bad).toMatchObject({
      stop: 'model-error',
      error: { retryable: false, attempts: 1, message: expect.stringContaining('"stop"') },
    });
  });
});
