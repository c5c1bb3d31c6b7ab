import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { adapterSuite } from '../testing/adapter-suite.js';
import { startOpenAIResponsesServer } from '../testing/openai-responses-server.js';
import { openaiResponses, responsesInput } from './openai-responses.js';

adapterSuite({
  name: 'openaiResponses',
  start: startOpenAIResponsesServer,
  model: (server, stream) =>
    openaiResponses({ client: new OpenAI({ apiKey: 'test-key', baseURL: server.url, maxRetries: 0 }), model: 'test-model', stream }),
  servedId: (t, i) => `call_${t}_${i}`,
  finish: { maxTokens: 'max_output_tokens', refusal: 'content_filter' },
});

describe('openaiResponses history', () => {
  it('rebuilds calls from neutral history and answers them by call_id, context last', () => {
    expect(
      responsesInput([
        { role: 'user', text: 'go' },
        { role: 'assistant', text: 'ok', calls: [{ id: 'c1', name: 'read', args: '{"a":1}' }] },
        { role: 'tool', results: [{ id: 'c1', name: 'read', status: 'error', content: 'Error (X): y', isError: true }], context: 'ctx' },
      ]),
    ).toEqual([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: 'ok' },
      { type: 'function_call', call_id: 'c1', name: 'read', arguments: '{"a":1}' },
      { type: 'function_call_output', call_id: 'c1', output: 'Error (X): y' },
      { role: 'user', content: 'ctx' },
    ]);
  });

  it('refuses unknown options, naming the field', () => {
    const client = new OpenAI({ apiKey: 'k', baseURL: 'http://127.0.0.1:9' });
    expect(() => openaiResponses({ client, model: 'm', strcit: true } as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS', message: expect.stringContaining('strcit') }),
    );
  });
});
