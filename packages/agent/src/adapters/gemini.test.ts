import { GoogleGenAI } from '@google/genai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAgent } from '../run-agent.js';
import { adapterSuite } from '../testing/adapter-suite.js';
import type { FakeServer } from '../testing/fake-http.js';
import { startGeminiServer } from '../testing/gemini-server.js';
import { type Workspace, workspace } from '../testing/scenario.js';
import { geminiGenerate, geminiModel } from './gemini.js';

function clientFor(server: FakeServer): GoogleGenAI {
  return new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: server.url } });
}

adapterSuite({
  name: 'geminiModel',
  start: startGeminiServer,
  model: (server, stream, media) => geminiModel({ client: clientFor(server), model: 'test-model', stream, ...media }),
  finish: { maxTokens: 'MAX_TOKENS', refusal: 'SAFETY' },
  // Google sends no retry-after header: the wait is a RetryInfo detail in the body.
  rateLimited: (seconds) => ({
    status: 429,
    body: {
      error: {
        code: 429,
        message: 'Resource has been exhausted',
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${seconds}s` }],
      },
    },
  }),
  rateLimitType: 'RESOURCE_EXHAUSTED',
  wire: {
    tools: (body) => (body.tools as { functionDeclarations: { name: string }[] }[])[0]?.functionDeclarations.map((f) => f.name),
    choice: (body) => (body.toolConfig as { functionCallingConfig?: unknown } | undefined)?.functionCallingConfig,
    choices: { none: { mode: 'NONE' }, required: { mode: 'ANY' }, tool: (name) => ({ mode: 'ANY', allowedFunctionNames: [name] }) },
    media: (node) => {
      const inline = node.inlineData as { mimeType?: string; data?: string } | undefined;
      return inline === undefined ? undefined : { mediaType: String(inline.mimeType), data: String(inline.data) };
    },
  },
});

describe('geminiModel ids', () => {
  it('keeps geminiGenerate as a deprecated alias', () => {
    expect(geminiGenerate).toBe(geminiModel);
  });

  let ws: Workspace;
  let server: FakeServer | undefined;
  beforeEach(async () => {
    ws = await workspace();
  });
  afterEach(async () => {
    await server?.close();
    await ws.cleanup();
  });

  it('makes up distinct ids when the API gives none, and answers by name without them', async () => {
    server = await startGeminiServer([
      {
        calls: [
          { name: 'read', args: '{"file_path":"a.txt"}' },
          { name: 'read', args: '{"file_path":"b.txt"}' },
        ],
      },
      { text: 'done' },
    ]);
    const result = await runAgent({
      host: ws.host,
      model: geminiModel({ client: clientFor(server), model: 'test-model' }),
      messages: [{ role: 'user', text: 'go' }],
    });
    expect(server.problems).toEqual([]);
    const assistant = result.messages[1];
    const ids = assistant?.role === 'assistant' ? assistant.calls.map((c) => c.id) : [];
    expect(new Set(ids).size).toBe(2);
    const body = server.requests[1]?.body;
    const sent = (body as { contents: { parts: { functionResponse?: { id?: string } }[] }[] }).contents[2];
    expect(sent?.parts.map((p) => p.functionResponse && 'id' in p.functionResponse)).toEqual([false, false]);
  });

  it("uses the API's ids when it gives them", async () => {
    server = await startGeminiServer([{ calls: [{ id: 'fc-1', name: 'read', args: '{"file_path":"a.txt"}' }] }, { text: 'done' }]);
    const result = await runAgent({
      host: ws.host,
      model: geminiModel({ client: clientFor(server), model: 'test-model', stream: true }),
      messages: [{ role: 'user', text: 'go' }],
    });
    expect(server.problems).toEqual([]);
    expect(result.messages[2]).toMatchObject({ role: 'tool', results: [{ id: 'fc-1', status: 'ok' }] });
  });
});
