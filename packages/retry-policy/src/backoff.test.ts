import { describe, expect, it } from 'vitest';
import { type Backoff, backoffDelay } from './index.js';

const base: Backoff = { initialMs: 100, multiplier: 2, maxMs: 1_000, jitter: 'none' };

describe('backoffDelay', () => {
  it('grows exponentially from initialMs and stops growing at maxMs', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, base, () => 0.5))).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });

  it('draws full jitter from zero to the delay', () => {
    const full = { ...base, jitter: 'full' } as const;
    expect(backoffDelay(3, full, () => 0)).toBe(0);
    expect(backoffDelay(3, full, () => 0.25)).toBe(100);
    expect(backoffDelay(3, full, () => 0.999)).toBe(400);
  });

  it('draws equal jitter from half the delay to the delay', () => {
    const equal = { ...base, jitter: 'equal' } as const;
    expect(backoffDelay(3, equal, () => 0)).toBe(200);
    expect(backoffDelay(3, equal, () => 0.5)).toBe(300);
  });

  it('clamps a random source that strays outside [0, 1)', () => {
    const full = { ...base, jitter: 'full' } as const;
    expect(backoffDelay(1, full, () => -3)).toBe(0);
    expect(backoffDelay(1, full, () => 7)).toBe(100);
    expect(backoffDelay(1, full, () => Number.NaN)).toBe(0);
  });
});
