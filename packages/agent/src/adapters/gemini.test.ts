import { GoogleGenAI } from '@google/genai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAgent } from '../run-agent.js';
import { adapterSuite } from '../testing/adapter-suite.js';
import type { FakeServer } from '../testing/fake-http.js';
import { startGeminiServer } from '../testing/gemini-server.js';
import { type Workspace, workspace } from '../testing/scenario.js';
import { geminiGenerate } from './gemini.js';

function clientFor(server: FakeServer): GoogleGenAI {
  return new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: server.url } });
}

adapterSuite({
  name: 'geminiGenerate',
  start: startGeminiServer,
  model: (server, stream) => geminiGenerate({ client: clientFor(server), model: 'test-model', stream }),
  finish: { maxTokens: 'MAX_TOKENS', refusal: 'SAFETY' },
});

describe('geminiGenerate ids', () => {
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
      model: geminiGenerate({ client: clientFor(server), model: 'test-model' }),
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
      model: geminiGenerate({ client: clientFor(server), model: 'test-model', stream: true }),
      messages: [{ role: 'user', text: 'go' }],
    });
    expect(server.problems).toEqual([]);
    expect(result.messages[2]).toMatchObject({ role: 'tool', results: [{ id: 'fc-1', status: 'ok' }] });
  });
});
