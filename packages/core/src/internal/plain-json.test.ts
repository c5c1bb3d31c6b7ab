import fc from 'fast-check';
import { isInteger, isSafeNumber, LosslessNumber, parse } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import { parseJsonExact } from '../json.js';
import { keyTokens, needsLossless, parsePlainJson } from './plain-json.js';

const exact = (text: string) => (isSafeNumber(text) ? Number(text) : isInteger(text) ? BigInt(text) : new LosslessNumber(text));
/** What the lossless parser alone makes of `text`: the value, or the error it throws. */
function lossless(text: string): { value?: unknown; error?: string } {
  try {
    return { value: parse(text, null, exact) };
  } catch (error) {
    return { error: String(error) };
  }
}
function ours(text: string): { value?: unknown; error?: string } {
  try {
    return { value: parseJsonExact(text) };
  } catch (error) {
    return { error: String(error) };
  }
}

/** Numbers as a model writes them, long ones and exponents included. */
const numberText = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
  fc.tuple(fc.nat(), fc.stringMatching(/^[0-9]{1,25}$/)).map(([i, f]) => `${i}.${f}`),
  fc.constantFrom('-0', '0.1', '1e5', '1E400', '-1e-400', '9007199254740993', '123456789012345', '1234567890123456'),
);
/** JSON text with repeated keys, escapes, `__proto__`, awkward spacing and the odd broken byte. */
const jsonText: fc.Arbitrary<string> = fc.letrec<{ value: string; object: string; array: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    numberText,
    fc.string({ unit: 'binary' }).map((s) => JSON.stringify(s)),
    fc.constantFrom('true', 'false', 'null', '"\\"', '"a\\\\"', '"\\u00e9\\n"'),
    tie('object'),
    tie('array'),
  ),
  object: fc
    .array(fc.tuple(fc.constantFrom('a', 'b', '__proto__', 'x\\"y', 'q\\\\', '1e5'), tie('value')), { maxLength: 4 })
    .map((entries) => `{${entries.map(([k, v]) => `"${k}" :${v}`).join(' , ')}}`),
  array: fc.array(tie('value'), { maxLength: 4 }).map((items) => `[ ${items.join(',')}]`),
})).value;
const damaged = fc.tuple(jsonText, fc.nat(), fc.constantFrom('', '"', '\\', ':', ',', '}', '1', 'e', ' ')).map(([text, at, put]) => {
  const i = text.length === 0 ? 0 : at % text.length;
  return text.slice(0, i) + put + text.slice(i + 1);
});

describe('parseJsonExact (the JSON.parse fast path)', () => {
  it('gives exactly what the lossless parser gives, value or error, on generated JSON', () => {
    fc.assert(
      fc.property(fc.oneof(jsonText, damaged), (text) => {
        expect(ours(text)).toStrictEqual(lossless(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('refuses a repeated key with another value, as the lossless parser does', () => {
    expect(parsePlainJson('{"a":1,"a":2}')).toBe(needsLossless);
    expect(() => parseJsonExact('{"a":1,"a":2}')).toThrow(/Duplicate key 'a'/);
    expect(() => parseJsonExact('{"n":{"a":1},"m":{"a":1,"a":[2]}}')).toThrow(/Duplicate key 'a'/);
    // Without numbers the colons are counted first; colons inside strings send it to the token scan.
    expect(() => parseJsonExact('{"a":"x","a":"y"}')).toThrow(/Duplicate key 'a'/);
    expect(() => parseJsonExact('{"a":"x:","a":"y"}')).toThrow(/Duplicate key 'a'/);
    expect(parsePlainJson('{"a":"b:c","d":"e"}')).toStrictEqual({ a: 'b:c', d: 'e' });
  });

  it('keeps an own "__proto__" key as data, never as the prototype', () => {
    const value = parseJsonExact('{"__proto__":{"polluted":true}}') as object;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
  });

  it('takes the native path for ordinary arguments, and the lossless one for long numbers and exponents', () => {
    expect(parsePlainJson('{"file_path":"/a \\"b\\"","n":[1,2.5,-3],"ok":true,"x":null}')).toStrictEqual({
      file_path: '/a "b"',
      n: [1, 2.5, -3],
      ok: true,
      x: null,
    });
    expect(parsePlainJson('[1234567890123456]')).toBe(needsLossless);
    expect(parsePlainJson('[1e3]')).toBe(needsLossless);
    expect(parseJsonExact('[12345678901234567890, 1e400]')).toStrictEqual([12345678901234567890n, new LosslessNumber('1e400')]);
  });

  it('counts keys only outside strings, past escaped quotes', () => {
    expect(keyTokens('{"a\\":":1,"b":"c:","d\\\\":2}')).toBe(3);
    expect(keyTokens('"unterminated')).toBe(-1);
  });

  it('leaves values nested deeper than its walk to the lossless parser', () => {
    const deep = `${'['.repeat(300)}1${']'.repeat(300)}`;
    expect(parsePlainJson(deep)).toBe(needsLossless);
    expect(parseJsonExact(deep)).toStrictEqual(JSON.parse(deep));
  });
});
