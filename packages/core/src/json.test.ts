import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { approxSize } from './internal/approx-size.js';
import { deepFreeze, findProtoKey, freezeJson, LosslessNumber, measureAndFreezeJson, parseJsonExact } from './json.js';

describe('parseJsonExact', () => {
  it('keeps integers above 2^53 exact as bigints and small numbers as numbers', () => {
    const value = parseJsonExact('{"big": 12345678901234567890, "small": 42, "float": 1.5}') as Record<string, unknown>;
    expect(value.big).toBe(12345678901234567890n);
    expect(value.small).toBe(42);
    expect(value.float).toBe(1.5);
  });

  it('keeps decimals with more digits than a double holds as LosslessNumber', () => {
    const value = parseJsonExact('[3.14159265358979323846264338]') as unknown[];
    expect(value[0]).toBeInstanceOf(LosslessNumber);
    expect(String(value[0])).toBe('3.14159265358979323846264338');
  });

  it('throws a SyntaxError on text that is not JSON', () => {
    expect(() => parseJsonExact('{"a":')).toThrow();
  });
});

describe('freezeJson', () => {
  it('accepts JSON with bigints and deep-freezes it', () => {
    const value = { a: [1, { b: 'x', c: null, big: 2n ** 70n }], d: true, skipped: undefined };
    expect(freezeJson(value)).toBeUndefined();
    expect(Object.isFrozen(value)).toBe(true);
    expect(Object.isFrozen(value.a)).toBe(true);
    expect(Object.isFrozen(value.a[1])).toBe(true);
  });

  it('allows the same object twice when it is not a cycle', () => {
    const shared = { x: 1 };
    expect(freezeJson({ a: shared, b: [shared, shared] })).toBeUndefined();
  });

  it.each([
    [
      'a cycle',
      (() => {
        const b: Record<string, unknown> = {};
        const o = { a: { b } };
        b.back = o;
        return o;
      })(),
      '$.a.b.back',
      'cycle',
    ],
    ['a function', { list: [1, () => 2] }, '$.list[1]', 'function'],
    ['NaN', { n: Number.NaN }, '$.n', 'NaN'],
    ['Infinity', [Number.POSITIVE_INFINITY], '$[0]', 'Infinity'],
    ['undefined in an array', { a: [1, undefined] }, '$.a[1]', 'undefined'],
    // biome-ignore lint/suspicious/noSparseArray: a hole is what this case is about
    ['a hole in an array', { a: [1, , 3] }, '$.a[1]', 'undefined'],
    ['a Date', { when: new Date(0) }, '$.when', 'Date'],
    ['a Map', { 'odd key': new Map() }, '$["odd key"]', 'Map'],
    ['a symbol', { s: Symbol('x') }, '$.s', 'symbol'],
  ])('names the place of %s', (_label, value, path, word) => {
    const problem = freezeJson(value);
    expect(problem?.path).toBe(path);
    expect(problem?.message).toContain(word);
  });

  it('refuses a value nested deeper than 2000 levels, which no real result is', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 2500; i++) deep = [deep];
    expect(freezeJson(deep)?.message).toContain('deeper than 2000');
  });

  it('refuses undefined itself', () => {
    expect(freezeJson(undefined)?.message).toContain('undefined');
  });

  it('accepts objects without a prototype and LosslessNumbers', () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare.n = new LosslessNumber('1.00000000000000000001');
    expect(freezeJson(bare)).toBeUndefined();
  });
});

describe('deepFreeze', () => {
  it('freezes plain objects and arrays and leaves class instances alone', () => {
    const date = new Date(0);
    const value = deepFreeze({ a: { b: [1, 2] }, date });
    expect(Object.isFrozen(value.a.b)).toBe(true);
    expect(Object.isFrozen(date)).toBe(false);
    expect(deepFreeze(5)).toBe(5);
  });
});

describe('measureAndFreezeJson', () => {
  it('estimates on its one walk the size the session log would estimate by walking again', () => {
    fc.assert(
      fc.property(
        fc.jsonValue().filter((v) => findProtoKey(v) === undefined),
        (value) => {
          const expected = approxSize(value);
          expect(measureAndFreezeJson(value)).toBe(expected);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('answers the problem, not a size, for a value that is not JSON', () => {
    expect(measureAndFreezeJson({ a: [1, () => 2] })).toEqual({ path: '$.a[1]', message: 'a function is not JSON' });
    expect(measureAndFreezeJson(undefined)).toEqual({ path: '$', message: 'undefined is not JSON' });
  });
});
