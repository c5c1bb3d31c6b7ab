import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { adapterSuite } from '../testing/adapter-suite.js';
import { startAnthropicServer } from '../testing/anthropic-server.js';
import { anthropicMessages, anthropicMessagesOf } from './anthropic.js';

adapterSuite({
  name: 'anthropicMessages',
  start: startAnthropicServer,
  model: (server, stream) =>
    anthropicMessages({ client: new Anthropic({ apiKey: 'test-key', baseURL: server.url, maxRetries: 0 }), model: 'test-model', stream }),
  servedId: (t, i) => `toolu_${t}_${i}`,
  finish: { maxTokens: 'max_tokens', refusal: 'refusal' },
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

  it('refuses options without a client, naming the field', () => {
    expect(() => anthropicMessages({ client: {} as Anthropic, model: 'm' })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS', message: expect.stringContaining('client') }),
    );
  });
});
