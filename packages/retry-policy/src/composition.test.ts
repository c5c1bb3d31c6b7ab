import { defineTool, type Outcome, type Plugin, ToolError, z } from '@deepseek-ai/dsh-core';
import { createTestHost, logProblems } from '@deepseek-ai/dsh-core/testing';
import { timeoutPolicy } from '@deepseek-ai/dsh-timeout-policy';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { retryPolicy } from './index.js';

/**
 * An idempotent tool whose n-th run takes `script[n].ms` (honouring its
 * signal) and then fails with `script[n].code`, or succeeds when no code is
 * given. `ms: Infinity` never finishes on its own.
 */
function scripted(script: readonly { readonly ms: number; readonly code?: string }[]) {
  const runs = { count: 0 };
  const tool = defineTool({
    name: 'fetch_page',
    description: 'fetches a page (scripted)',
    input: z.object({}),
    idempotent: true,
    execute: (_args, ctx) =>
      new Promise<string>((resolve, reject) => {
        const step = script[runs.count] ?? { ms: 0 };
        runs.count += 1;
        const run = runs.count;
        // A loaded machine may pass a deadline before execute runs; the event has fired then.
        if (ctx.signal.aborted) return reject(ctx.signal.reason);
        const timer = Number.isFinite(step.ms)
          ? setTimeout(
              () => (step.code === undefined ? resolve(`page (run ${run})`) : reject(new ToolError(step.code, `run ${run}: ${step.code}`))),
              step.ms,
            )
          : undefined;
        ctx.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(ctx.signal.reason);
        });
      }),
  });
  const plugin: Plugin = { name: 'scripted', version: '0.0.0', register: (host) => void host.tools.register(tool) };
  return { plugin, runs };
}

function track(p: Promise<Outcome>): { readonly settled: () => boolean; readonly outcome: Promise<Outcome> } {
  let done = false;
  return {
    settled: () => done,
    outcome: p.then((o) => {
      done = true;
      return o;
    }),
  };
}

const noJitter = { initialMs: 200, multiplier: 1, maxMs: 200, jitter: 'none' } as const;

describe('retry inside the timeout policy (the default stages)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('puts the timeout outside the retry whatever the registration order', async () => {
    const t = await createTestHost({ plugins: [retryPolicy(), timeoutPolicy()] });
    expect(t.host.hooks.execute.names()).toEqual(['timeout-policy', 'retry-policy']);
  });

  it('lets one deadline cover every attempt and backoff, and stops retrying before it', async () => {
    const { plugin, runs } = scripted([
      { ms: 300, code: 'ECONNRESET' },
      { ms: 300, code: 'ECONNRESET' },
    ]);
    const t = await createTestHost({
      plugins: [timeoutPolicy({ defaultMs: 1_000, graceMs: 100 }), retryPolicy({ maxAttempts: 5, backoff: noJitter }), plugin],
    });
    const call = track(t.call('fetch_page'));
    // 0-300 attempt 1, 300-500 backoff, 500-800 attempt 2; a further 200 ms wait would reach the deadline at 1000.
    await vi.advanceTimersByTimeAsync(800);
    expect(call.settled()).toBe(true);
    expect(await call.outcome).toMatchObject({ status: 'error', error: { code: 'ECONNRESET', message: 'run 2: ECONNRESET' } });
    expect(runs.count).toBe(2);
    const decisions = t.host.events.list().flatMap((e) => (e.type === 'retry/attempt' ? [e.data.decision] : []));
    expect(decisions).toEqual(['retry', 'deadline']);
    // The timeout policy's shared timer may still be armed for the old deadline; it finds nothing to do.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('times the whole call out when an attempt runs into the deadline', async () => {
    const { plugin, runs } = scripted([{ ms: 100, code: 'ECONNRESET' }, { ms: Number.POSITIVE_INFINITY }]);
    const t = await createTestHost({
      plugins: [timeoutPolicy({ defaultMs: 1_000, graceMs: 100 }), retryPolicy({ backoff: noJitter }), plugin],
    });
    const call = track(t.call('fetch_page'));
    await vi.advanceTimersByTimeAsync(1_000);
    const outcome = await call.outcome;
    expect(outcome).toMatchObject({
      status: 'error',
      by: 'timeout-policy',
      error: { code: 'TOOL_TIMEOUT', data: { deadlineMs: 1_000, elapsedMs: 1_000, settled: 'within-grace' } },
    });
    expect(runs.count).toBe(2);
    expect(logProblems(t.host.events.list())).toEqual([]);
  });
});

describe('retry outside the timeout policy (retry given the lower stage)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gives each attempt a deadline of its own and retries a timeout when TOOL_TIMEOUT is retryable', async () => {
    const { plugin, runs } = scripted([{ ms: Number.POSITIVE_INFINITY }, { ms: 700 }]);
    const t = await createTestHost({
      plugins: [
        timeoutPolicy({ defaultMs: 1_000, graceMs: 100 }),
        retryPolicy({ stage: -300, retryOn: ['TOOL_TIMEOUT'], backoff: noJitter }),
        plugin,
      ],
    });
    expect(t.host.hooks.execute.names()).toEqual(['retry-policy', 'timeout-policy']);
    const call = track(t.call('fetch_page'));
    // Attempt 1 times out at 1000 and settles within grace; 200 ms backoff; attempt 2 takes 700 ms on a fresh deadline.
    await vi.advanceTimersByTimeAsync(1_900);
    expect(await call.outcome).toMatchObject({ status: 'ok', output: 'page (run 2)' });
    expect(runs.count).toBe(2);
    const logged = t.host.events.list().flatMap((e) => (e.type === 'retry/attempt' ? [e.data] : []));
    expect(logged).toEqual([expect.objectContaining({ attempt: 1, code: 'TOOL_TIMEOUT', decision: 'retry', durationMs: 1_000 })]);
  });

  it('does not retry a timeout unless TOOL_TIMEOUT is listed', async () => {
    const { plugin, runs } = scripted([{ ms: Number.POSITIVE_INFINITY }, { ms: 10 }]);
    const t = await createTestHost({
      plugins: [timeoutPolicy({ defaultMs: 1_000, graceMs: 100 }), retryPolicy({ stage: -300, backoff: noJitter }), plugin],
    });
    const call = track(t.call('fetch_page'));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await call.outcome).toMatchObject({ status: 'error', error: { code: 'TOOL_TIMEOUT' } });
    expect(runs.count).toBe(1);
  });
});
