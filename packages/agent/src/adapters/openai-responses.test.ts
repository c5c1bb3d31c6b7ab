import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { adapterSuite } from '../testing/adapter-suite.js';
import { startOpenAIResponsesServer } from '../testing/openai-responses-server.js';
import { openaiResponses, openaiResponsesModel, responsesInput } from './openai-responses.js';

adapterSuite({
  name: 'openaiResponsesModel',
  start: startOpenAIResponsesServer,
  // The client keeps its default retries: the adapter must turn them off per request.
  model: (server, stream, media) =>
    openaiResponsesModel({ client: new OpenAI({ apiKey: 'test-key', baseURL: server.url }), model: 'test-model', stream, ...media }),
  servedId: (t, i) => `call_${t}_${i}`,
  finish: { maxTokens: 'max_output_tokens', refusal: 'content_filter' },
  rateLimited: (seconds) => ({ status: 429, type: 'requests', headers: { 'retry-after': String(seconds) } }),
  rateLimitType: 'requests',
  wire: {
    tools: (body) => (body.tools as { name: string }[]).map((t) => t.name),
    choice: (body) => body.tool_choice,
    choices: { none: 'none', required: 'required', tool: (name) => ({ type: 'function', name }) },
    media: (node) => {
      const url = node.type === 'input_image' ? node.image_url : node.type === 'input_file' ? node.file_data : undefined;
      const m = /^data:([^;]+);base64,(.*)$/.exec(typeof url === 'string' ? url : '');
      return m === null ? undefined : { mediaType: m[1] as string, data: m[2] as string };
    },
  },
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

  it('keeps openaiResponses as a deprecated alias', () => {
    expect(openaiResponses).toBe(openaiResponsesModel);
  });

  it('refuses unknown options, naming the field', () => {
    const client = new OpenAI({ apiKey: 'k', baseURL: 'http://127.0.0.1:9' });
    expect(() => openaiResponsesModel({ client, model: 'm', strcit: true } as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS', message: expect.stringContaining('strcit') }),
    );
  });
});
