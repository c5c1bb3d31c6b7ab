import { describe, expect, it } from 'vitest';
import { describeModelError } from './model-error.js';
import { retryDelay, retryPolicy, sleep } from './retry.js';

describe('describeModelError', () => {
  it('reads the status, the type and retry-after-ms from an SDK error', () => {
    const error = Object.assign(new Error('429 slow down'), {
      status: 429,
      headers: new Headers({ 'retry-after-ms': '1500', 'retry-after': '9' }),
      error: { type: 'rate_limit_error' },
    });
    expect(describeModelError(error)).toEqual({
      message: '429 slow down',
      status: 429,
      type: 'rate_limit_error',
      retryAfterMs: 1500,
      retryable: true,
    });
  });

  it('reads retry-after as an HTTP date', () => {
    const at = new Date(Date.now() + 60_000).toUTCString();
    const detail = describeModelError({ status: 503, headers: { 'retry-after': at }, message: 'busy' });
    expect(detail.retryAfterMs).toBeGreaterThan(0);
    expect(detail.retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it('does not retry an exhausted quota, a 400 or a 401, and follows x-should-retry', () => {
    expect(describeModelError({ status: 429, type: 'insufficient_quota', message: 'quota' }).retryable).toBe(false);
    expect(describeModelError({ status: 400, message: 'bad' }).retryable).toBe(false);
    expect(describeModelError({ status: 401, message: 'key' }).retryable).toBe(false);
    expect(describeModelError({ status: 400, headers: { 'x-should-retry': 'true' }, message: 'x' }).retryable).toBe(true);
    expect(describeModelError({ status: 503, headers: { 'x-should-retry': 'false' }, message: 'x' }).retryable).toBe(false);
  });

  it("reads Google's RPC status and RetryInfo from the JSON in the message", () => {
    const body = {
      error: {
        code: 429,
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '2.5s' }],
      },
    };
    const detail = describeModelError(Object.assign(new Error(JSON.stringify(body)), { status: 429 }));
    expect(detail).toMatchObject({ status: 429, type: 'RESOURCE_EXHAUSTED', retryAfterMs: 2500, retryable: true });
  });

  it('retries a connection reset found in the cause chain, never an abort', () => {
    const reset = new TypeError('fetch failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) });
    expect(describeModelError(Object.assign(new Error('Connection error.'), { cause: reset }))).toMatchObject({ retryable: true });
    expect(describeModelError(new DOMException('aborted', 'AbortError')).retryable).toBe(false);
    expect(describeModelError(new Error('something else')).retryable).toBe(false);
    expect(describeModelError('a string').message).toBe('a string');
  });
});

describe('retryDelay', () => {
  const policy = retryPolicy({ maxAttempts: 4, initialDelayMs: 100, maxDelayMs: 1000 });

  it('backs off exponentially with jitter, within the cap', () => {
    const detail = { message: 'x', retryable: true };
    expect(retryDelay(policy, 1, detail, () => 0)).toBe(50);
    expect(retryDelay(policy, 1, detail, () => 1)).toBe(100);
    expect(retryDelay(policy, 3, detail, () => 1)).toBe(400);
    expect(retryDelay(retryPolicy({ maxAttempts: 20, initialDelayMs: 100, maxDelayMs: 1000 }), 10, detail, () => 1)).toBe(1000);
  });

  it('waits what retry-after says, gives up beyond maxDelayMs, and stops after maxAttempts', () => {
    expect(retryDelay(policy, 1, { message: 'x', retryable: true, retryAfterMs: 700 })).toBe(700);
    expect(retryDelay(policy, 1, { message: 'x', retryable: true, retryAfterMs: 7000 })).toBeUndefined();
    expect(retryDelay(policy, 4, { message: 'x', retryable: true })).toBeUndefined();
    expect(retryDelay(policy, 1, { message: 'x', retryable: false })).toBeUndefined();
    expect(retryDelay(retryPolicy(false), 1, { message: 'x', retryable: true })).toBeUndefined();
  });

  it('ends a wait when the signal fires', async () => {
    const controller = new AbortController();
    const waiting = sleep(600_000, controller.signal);
    controller.abort();
    await expect(waiting).resolves.toBe(false);
    await expect(sleep(0, undefined)).resolves.toBe(true);
  });
});
