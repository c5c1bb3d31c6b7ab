import { LosslessNumber, type Outcome } from '@deepseek-ai/dsh-core';
import { describe, expect, it } from 'vitest';
import { modelOutputOf } from './index.js';

describe('modelOutputOf', () => {
  it('sends a string as text and other JSON as json', () => {
    expect(modelOutputOf({ status: 'ok', stage: 'execute', output: 'plain' })).toEqual({ type: 'text', value: 'plain' });
    expect(modelOutputOf({ status: 'ok', stage: 'execute', output: { a: [1, true, null] } })).toEqual({
      type: 'json',
      value: { a: [1, true, null] },
    });
  });

  it('keeps every digit of integers JSON would round, as exact JSON text', () => {
    const outcome: Outcome = {
      status: 'ok',
      stage: 'execute',
      output: { big: 12345678901234567890n, exact: new LosslessNumber('9007199254740993'), s: 'x"y' },
    };
    expect(modelOutputOf(outcome)).toEqual({ type: 'text', value: '{"big":12345678901234567890,"exact":9007199254740993,"s":"x\\"y"}' });
  });

  it('sends content parts as the SDK content kinds', () => {
    const outcome: Outcome = {
      status: 'ok',
      stage: 'execute',
      output: {
        type: 'content',
        parts: [
          { type: 'text', text: 'an image' },
          { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
          { type: 'file', mediaType: 'application/pdf', data: 'JVBERi0=', name: 'a.pdf' },
        ],
      },
    };
    expect(modelOutputOf(outcome)).toEqual({
      type: 'content',
      value: [
        { type: 'text', text: 'an image' },
        { type: 'image-data', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
        { type: 'file-data', data: 'JVBERi0=', mediaType: 'application/pdf', filename: 'a.pdf' },
      ],
    });
  });

  it('sends a denial as execution-denied, a block as its reason and an error as CODE: message', () => {
    expect(modelOutputOf({ status: 'denied', stage: 'guard', code: 'DENIED', reason: 'no' })).toEqual({
      type: 'execution-denied',
      reason: 'no',
    });
    expect(modelOutputOf({ status: 'blocked', stage: 'post-execute', code: 'BLOCKED', reason: 'withheld' })).toEqual({
      type: 'text',
      value: 'withheld',
    });
    expect(modelOutputOf({ status: 'error', stage: 'execute', error: { code: 'TOOL_TIMEOUT', message: 'too slow' } })).toEqual({
      type: 'error-text',
      value: 'TOOL_TIMEOUT: too slow',
    });
  });
});
