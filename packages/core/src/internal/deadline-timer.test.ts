import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeadlineTimer, type TimerTarget } from './deadline-timer.js';

/** A target that writes its name into `fired` when its deadline passes. */
function target(name: string, fired: string[]): TimerTarget {
  return { fire: () => fired.push(name), timerAt: 0, timerPrev: undefined, timerNext: undefined };
}

describe('DeadlineTimer', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fires targets in deadline order whatever order they were scheduled in, and not cancelled ones', async () => {
    const timer = new DeadlineTimer();
    const fired: string[] = [];
    const now = performance.now();
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((n) => target(n, fired)) as [TimerTarget, TimerTarget, TimerTarget, TimerTarget];
    timer.schedule(now + 30, c);
    timer.schedule(now + 10, a);
    timer.schedule(now + 40, d);
    timer.schedule(now + 20, b);
    timer.cancel(c);
    await vi.advanceTimersByTimeAsync(15);
    expect(fired).toEqual(['a']);
    await vi.advanceTimersByTimeAsync(30);
    expect(fired).toEqual(['a', 'b', 'd']);
  });

  it('ignores cancelling a target that is not scheduled, or one that has fired', async () => {
    const timer = new DeadlineTimer();
    const fired: string[] = [];
    const a = target('a', fired);
    const b = target('b', fired);
    timer.cancel(a);
    timer.schedule(performance.now() + 5, b);
    timer.cancel(a);
    await vi.advanceTimersByTimeAsync(5);
    timer.cancel(b);
    timer.schedule(performance.now() + 5, a);
    await vi.advanceTimersByTimeAsync(5);
    expect(fired).toEqual(['b', 'a']);
  });

  it('holds the event loop only while a deadline is pending, and lets go on the next turn after the last is cancelled', async () => {
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    const timer = new DeadlineTimer();
    const a = target('a', []);
    timer.schedule(performance.now() + 1_000, a);
    const armed = setTimeoutSpy.mock.results[0]?.value as NodeJS.Timeout;
    expect(armed.hasRef()).toBe(true);
    timer.cancel(a);
    // Back-to-back calls do not toggle it: still held until the event loop turns.
    expect(armed.hasRef()).toBe(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(armed.hasRef()).toBe(false);
    timer.schedule(performance.now() + 2_000, target('b', []));
    expect(armed.hasRef()).toBe(true);
    setTimeoutSpy.mockRestore();
  });
});
