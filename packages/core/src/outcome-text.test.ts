import { describe, expect, it } from 'vitest';
import { LosslessNumber } from './json.js';
import { deniedOutcome, errorOutcome } from './outcome.js';
import { exactJsonText, outcomeText } from './outcome-text.js';

describe('exactJsonText', () => {
  it('writes bigints and lossless numbers with every digit, unquoted', () => {
    const value = { big: 12345678901234567890n, exact: new LosslessNumber('9007199254740993'), list: [1, 'two'] };
    expect(exactJsonText(value)).toBe('{"big":12345678901234567890,"exact":9007199254740993,"list":[1,"two"]}');
  });
  it('leaves strings alone beside exact numbers, even ones with a NUL and a #', () => {
    expect(JSON.parse(exactJsonText({ a: 1n, b: '\u0000abc#0', c: ['#1'] }))).toEqual({ a: 1, b: '\u0000abc#0', c: ['#1'] });
  });
  it('writes what JSON.stringify writes for plain values, and null for none', () => {
    const plain = { a: [1, 2.5, null, true], b: 'x"y' };
    expect(exactJsonText(plain)).toBe(JSON.stringify(plain));
    expect(exactJsonText(undefined)).toBe('null');
  });
});

describe('outcomeText', () => {
  it('reads an ok output as itself, and the other statuses as code and reason', () => {
    expect(outcomeText({ status: 'ok', output: 'hello', stage: 'execute' } as never)).toBe('hello');
    expect(outcomeText({ status: 'ok', output: { n: 2n }, stage: 'execute' } as never)).toBe('{"n":2}');
    expect(outcomeText(deniedOutcome('guard', 'GUARD_DENIED', 'no deploys on Friday'))).toBe('Denied (GUARD_DENIED): no deploys on Friday');
    expect(outcomeText(errorOutcome('execute', 'TOOL_FAILED', 'boom'))).toBe('Error (TOOL_FAILED): boom');
  });
});
