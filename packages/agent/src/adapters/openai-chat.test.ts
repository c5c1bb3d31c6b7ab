import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentMessage } from '../messages.js';
import { runAgent } from '../run-agent.js';
import { adapterSuite } from '../testing/adapter-suite.js';
import type { FakeServer } from '../testing/fake-http.js';
import { startOpenAIChatServer } from '../testing/openai-chat-server.js';
import { type Workspace, workspace } from '../testing/scenario.js';
import { chatMessages, openaiChat, openaiChatModel } from './openai-chat.js';

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

const task: AgentMessage[] = [{ role: 'user', text: 'Combine a.txt and b.txt into c.txt.' }];

/** A client with its default retries: the adapter must turn them off per request. */
function clientFor(s: FakeServer): OpenAI {
  return new OpenAI({ apiKey: 'test-key', baseURL: s.url });
}

adapterSuite({
  name: 'openaiChatModel',
  start: startOpenAIChatServer,
  model: (s, stream, media) => openaiChatModel({ client: clientFor(s), model: 'test-model', stream, ...media }),
  servedId: (t, i) => `call_${t}_${i}`,
  finish: { maxTokens: 'length', refusal: 'content_filter' },
  rateLimited: (seconds) => ({ status: 429, type: 'requests', headers: { 'retry-after': String(seconds) } }),
  rateLimitType: 'requests',
  wire: {
    tools: (body) => (body.tools as { function: { name: string } }[]).map((t) => t.function.name),
    choice: (body) => body.tool_choice,
    choices: { none: 'none', required: 'required', tool: (name) => ({ type: 'function', function: { name } }) },
    media: (node) => {
      const url =
        node.type === 'image_url'
          ? (node.image_url as { url?: string })?.url
          : node.type === 'file'
            ? (node.file as { file_data?: string })?.file_data
            : undefined;
      const m = /^data:([^;]+);base64,(.*)$/.exec(url ?? '');
      return m === null ? undefined : { mediaType: m[1] as string, data: m[2] as string };
    },
  },
});

const refused = new Set(['minimum', 'maximum', 'pattern', 'format', '$schema', 'exclusiveMinimum', 'minLength', 'maxLength']);

/** Every schema keyword used anywhere in a JSON Schema (property names excluded). */
function keywordsOf(node: unknown): string[] {
  if (typeof node !== 'object' || node === null) return [];
  if (Array.isArray(node)) return node.flatMap(keywordsOf);
  return Object.entries(node).flatMap(([key, value]) =>
    key === 'properties' ? Object.values(value as object).flatMap(keywordsOf) : [key, ...keywordsOf(value)],
  );
}

describe('openaiChat requests', () => {
  it('sends strict schemas reduced to what the API accepts', async () => {
    server = await startOpenAIChatServer([{ text: 'ok' }]);
    await runAgent({ host: ws.host, model: openaiChatModel({ client: clientFor(server), model: 'm', strict: true }), messages: task });
    // The tools' own schemas do use refused keywords, so the reduction has work to do.
    expect(keywordsOf(ws.host.tools.schemas().map((t) => t.inputSchema)).some((k) => refused.has(k))).toBe(true);
    const body = server.requests[0]?.body;
    const tools = (body as { tools: { function: { strict: boolean; parameters: Record<string, unknown> } }[] }).tools;
    for (const tool of tools) {
      expect(tool.function.strict).toBe(true);
      expect(tool.function.parameters.additionalProperties).toBe(false);
      expect(keywordsOf(tool.function.parameters).filter((k) => refused.has(k))).toEqual([]);
    }
  });

  it('keeps openaiChat as a deprecated alias', () => {
    expect(openaiChat).toBe(openaiChatModel);
  });

  it('refuses options without a client, naming the field', () => {
    expect(() => openaiChatModel({ client: {} as OpenAI, model: 'm' })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS', message: expect.stringContaining('client') }),
    );
  });
});

describe('openaiChat history', () => {
  it('sends reasoning_content back, calls as JSON text, results in order and the context after them', () => {
    const messages = chatMessages('sys', [
      { role: 'user', text: 'go' },
      {
        role: 'assistant',
        text: '',
        calls: [{ id: 'c1', name: 'read', args: '{"n": 12345678901234567890}' }],
        provider: { adapter: 'openai-chat', data: { reasoning_content: 'think' } },
      },
      { role: 'tool', results: [{ id: 'c1', name: 'read', status: 'ok', content: 'A', isError: false }], context: 'ctx' },
    ]);
    expect(messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'think',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{"n": 12345678901234567890}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'A' },
      { role: 'user', content: 'ctx' },
    ]);
  });

  it("ignores another adapter's provider data", () => {
    const [assistant] = chatMessages(undefined, [
      { role: 'assistant', text: 'hi', calls: [], provider: { adapter: 'anthropic', data: [] } },
    ]);
    expect(assistant).toEqual({ role: 'assistant', content: 'hi' });
  });
});
