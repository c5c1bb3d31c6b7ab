import { describe, expect, it } from 'vitest';
import { codeOf } from './__fixtures__/errors.js';
import { TapList } from './taps.js';

const noop = (): void => undefined;

describe('TapList', () => {
  it('orders taps by stage, then by registration order', () => {
    const list = new TapList<() => void>('test');
    list.tap({ name: 'late', stage: 10 }, noop);
    list.tap('first-default', noop);
    list.tap({ name: 'early', stage: -5 }, noop);
    list.tap('second-default', noop);
    expect(list.names()).toEqual(['early', 'first-default', 'second-default', 'late']);
  });

  it('places a tap before the taps it names, whatever their stage', () => {
    const list = new TapList<() => void>('test');
    list.tap({ name: 'a', stage: -10 }, noop);
    list.tap('b', noop);
    list.tap({ name: 'c', stage: 5, before: 'a' }, noop);
    list.tap({ name: 'd', before: ['b', 'missing'] }, noop);
    expect(list.names()).toEqual(['c', 'a', 'd', 'b']);
  });

  it('ignores a before that names no registered tap', () => {
    const list = new TapList<() => void>('test');
    list.tap('a', noop);
    list.tap({ name: 'b', before: 'nobody' }, noop);
    expect(list.names()).toEqual(['a', 'b']);
  });

  it('removes a tap with the function tap returned, and only that tap', () => {
    const list = new TapList<() => void>('test');
    const untapA = list.tap('a', noop);
    list.tap('b', noop);
    untapA();
    untapA();
    expect(list.names()).toEqual(['b']);
    list.tap('a', noop);
    expect(list.names()).toEqual(['b', 'a']);
  });

  it('keeps the order a run began with when a tap is added during it', () => {
    const list = new TapList<() => void>('test');
    list.tap('a', noop);
    const snapshot = list.taps;
    list.tap('b', noop);
    expect(snapshot.map((t) => t.name)).toEqual(['a']);
  });

  it('refuses a duplicate name, a missing name, a non-function and bad numbers, with codes', () => {
    const list = new TapList<() => void>('tools/pre-execute');
    list.tap('a', noop);
    expect(codeOf(() => list.tap('a', noop))).toBe('DUPLICATE_TAP');
    expect(codeOf(() => list.tap('', noop))).toBe('INVALID_TAP');
    expect(codeOf(() => list.tap('x', 'nope' as unknown as () => void))).toBe('INVALID_TAP');
    expect(codeOf(() => list.tap({ name: 'y', stage: Number.NaN }, noop))).toBe('INVALID_TAP');
    expect(codeOf(() => list.tap({ name: 'z', timeoutMs: 0 }, noop))).toBe('INVALID_TAP');
  });
});
