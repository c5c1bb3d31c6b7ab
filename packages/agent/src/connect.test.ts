import { afterEach, describe, expect, it } from 'vitest';
import { connectModel, type Provider } from './connect.js';
import { startAnthropicServer } from './testing/anthropic-server.js';
import type { FakeServer, ScriptedTurn } from './testing/fake-http.js';
import { startGeminiServer } from './testing/gemini-server.js';
import { startOpenAIChatServer } from './testing/openai-chat-server.js';
import { startOpenAIResponsesServer } from './testing/openai-responses-server.js';

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const servers: Record<Provider, (turns: readonly ScriptedTurn[]) => Promise<FakeServer>> = {
  deepseek: startOpenAIChatServer,
  openai: startOpenAIChatServer,
  'openai-responses': startOpenAIResponsesServer,
  anthropic: startAnthropicServer,
  gemini: startGeminiServer,
};

describe('connectModel', () => {
  it.each(Object.keys(servers) as Provider[])('builds a working model for %s with the key from the environment', async (provider) => {
    server = await servers[provider]([{ text: 'hello' }]);
    const env = { DEEPSEEK_API_KEY: 'k', OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k', GEMINI_API_KEY: 'k' };
    const model = await connectModel({ provider, model: 'test-model', baseURL: server.url, env, maxRetries: 0 });
    const turn = await model({ messages: [{ role: 'user', text: 'hi' }], tools: [] }, {});
    expect(turn).toMatchObject({ text: 'hello', stop: 'end' });
    expect(server.problems).toEqual([]);
  });

  it('sends the API key it was given', async () => {
    server = await startAnthropicServer([{ text: 'hello' }]);
    const model = await connectModel({ provider: 'anthropic', model: 'm', baseURL: server.url, apiKey: 'sk-given', maxRetries: 0 });
    await model({ messages: [{ role: 'user', text: 'hi' }], tools: [] }, {});
    const { authorization, 'x-api-key': key } = server.requests[0]?.headers ?? {};
    expect([authorization, key]).toContain(key === undefined ? 'Bearer sk-given' : 'sk-given');
  });

  it('names the variable to set when no key is found', async () => {
    await expect(connectModel({ env: {} })).rejects.toMatchObject({
      code: 'AGENT_API_KEY_MISSING',
      message: expect.stringContaining('DEEPSEEK_API_KEY'),
    });
  });

  it('refuses an unknown provider and a missing model, naming the field', async () => {
    await expect(connectModel({ provider: 'mistral' as Provider, env: {} })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('provider'),
    });
    await expect(connectModel({ provider: 'anthropic', apiKey: 'k' })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('model'),
    });
  });
});
