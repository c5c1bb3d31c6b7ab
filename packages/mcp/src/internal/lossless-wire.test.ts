import { LosslessNumber } from '@deepseek-ai/dsh-core';
import { describe, expect, it } from 'vitest';
import { wireParse, wireStringify } from './lossless-wire.js';

describe('the stdio wire format', () => {
  it('keeps big integers, long decimals and huge exponents exact both ways', () => {
    const text = '{"a":123456789012345678901,"b":0.1000000000000000000001,"c":1e400,"d":-9007199254740993,"e":[1.5,2]}';
    const parsed = wireParse(text) as Record<string, unknown>;
    expect(parsed.a).toBe(123456789012345678901n);
    expect(parsed.b).toBeInstanceOf(LosslessNumber);
    expect(parsed.e).toEqual([1.5, 2]);
    expect(wireStringify(parsed)).toBe(text);
  });

  it('reads ordinary messages as JSON.parse does', () => {
    const text = '{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"12345678901234567890 in a string"}],"n":0.5}}';
    expect(wireParse(text)).toEqual(JSON.parse(text));
    expect(wireStringify(JSON.parse(text))).toBe(text);
  });
});
