import Anthropic from '@anthropic-ai/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAgent } from '../run-agent.js';
import { adapterSuite } from '../testing/adapter-suite.js';
import { startAnthropicServer } from '../testing/anthropic-server.js';
import type { FakeServer } from '../testing/fake-http.js';
import { standardScript, type Workspace, workspace } from '../testing/scenario.js';
import { anthropicMessages, anthropicMessagesOf, anthropicModel } from './anthropic.js';

adapterSuite({
  name: 'anthropicModel',
  start: startAnthropicServer,
  // The client keeps its default retries: the adapter must turn them off per request.
  model: (server, stream, media) =>
    anthropicModel({ client: new Anthropic({ apiKey: 'test-key', baseURL: server.url }), model: 'test-model', stream, ...media }),
  servedId: (t, i) => `toolu_${t}_${i}`,
  finish: { maxTokens: 'max_tokens', refusal: 'refusal' },
  rateLimited: (seconds) => ({ status: 429, type: 'rate_limit_error', headers: { 'retry-after': String(seconds) } }),
  rateLimitType: 'rate_limit_error',
  wire: {
    tools: (body) => (body.tools as { name: string }[]).map((t) => t.name),
    choice: (body) => body.tool_choice,
    choices: { none: { type: 'none' }, required: { type: 'any' }, tool: (name) => ({ type: 'tool', name }) },
    media: (node) => {
      const source = node.source as { type?: string; media_type?: string; data?: string } | undefined;
      if ((node.type !== 'image' && node.type !== 'document') || source?.type !== 'base64') return undefined;
      return { mediaType: String(source.media_type), data: String(source.data) };
    },
  },
});

describe('anthropicMessages history', () => {
  it('marks failed results with is_error and puts the context after the results', () => {
    const [, , results] = anthropicMessagesOf([
      { role: 'user', text: 'go' },
      {
        role: 'assistant',
        text: '',
        calls: [
          { id: 't1', name: 'read', args: '{"file_path":"a"}' },
          { id: 't2', name: 'write', args: '{}' },
        ],
      },
      {
        role: 'tool',
        results: [
          { id: 't1', name: 'read', status: 'ok', content: 'A', isError: false },
          { id: 't2', name: 'write', status: 'denied', content: 'Denied (X): no', isError: true },
        ],
        context: 'remember the rules',
      },
    ]);
    expect(results).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 't1', content: 'A' },
        { type: 'tool_result', tool_use_id: 't2', content: 'Denied (X): no', is_error: true },
        { type: 'text', text: 'remember the rules' },
      ],
    });
  });

  it('keeps anthropicMessages as a deprecated alias', () => {
    expect(anthropicMessages).toBe(anthropicModel);
  });

  it('refuses options without a client, naming the field', () => {
    expect(() => anthropicModel({ client: {} as Anthropic, model: 'm' })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS', message: expect.stringContaining('client') }),
    );
  });
});

describe('anthropicModel prompt caching', () => {
  let ws: Workspace;
  let server: FakeServer | undefined;
  beforeEach(async () => {
    ws = await workspace();
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await ws.cleanup();
  });
  const client = (s: FakeServer) => new Anthropic({ apiKey: 'test-key', baseURL: s.url });
  const breakpoints = (node: unknown, path = ''): string[] => {
    if (typeof node !== 'object' || node === null) return [];
    return Object.entries(node).flatMap(([k, v]) => (k === 'cache_control' ? [path] : breakpoints(v, `${path}/${k}`)));
  };

  it('marks the last system block, the last tool and the last message, and reports cache reads in the turn events', async () => {
    server = await startAnthropicServer(standardScript());
    const result = await runAgent({
      host: ws.host,
      model: anthropicModel({ client: client(server), model: 'test-model' }),
      system: ['You are terse.', 'The project rules.'],
      messages: [{ role: 'user', text: 'Combine a.txt and b.txt into c.txt.' }],
    });
    expect(server.problems).toEqual([]);
    const tools = ws.host.tools.schemas().length;
    const second = server.requests[1]?.body as { system: unknown[]; messages: unknown[] };
    expect(second.system).toEqual([
      { type: 'text', text: 'You are terse.' },
      { type: 'text', text: 'The project rules.', cache_control: { type: 'ephemeral' } },
    ]);
    const last = second.messages.length - 1;
    // The second turn's results: two tool_result blocks, the last one marked.
    expect(breakpoints(second).sort()).toEqual([`/messages/${last}/content/1`, '/system/1', `/tools/${tools - 1}`]);
    const usages = ws.host.events.list().flatMap((e) => (e.type === 'agent/turn' && e.data.usage ? [e.data.usage] : []));
    expect(usages[0]).toMatchObject({ cachedInputTokens: 0, cacheWriteInputTokens: expect.any(Number) });
    expect(usages[1]?.cachedInputTokens).toBeGreaterThan(0);
    expect(usages[1]?.inputTokens).toBe((usages[1]?.cachedInputTokens ?? 0) + (usages[1]?.cacheWriteInputTokens ?? 0));
    expect(result.usage.cachedInputTokens).toBeGreaterThan(0);
  });

  it('sends no cache_control with cache: false', async () => {
    server = await startAnthropicServer([{ text: 'ok' }]);
    const model = anthropicModel({ client: client(server), model: 'test-model', cache: false });
    await runAgent({ host: ws.host, model, system: 'terse', messages: [{ role: 'user', text: 'hi' }] });
    expect(breakpoints(server.requests[0]?.body)).toEqual([]);
  });
});
