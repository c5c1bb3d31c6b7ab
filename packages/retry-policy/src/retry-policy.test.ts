import { type AnySessionEvent, defineTool, type Plugin, type ToolDefinition, ToolError, z } from '@deepseek-ai/dsh-core';
import { createTestHost, logProblems, type TestHost } from '@deepseek-ai/dsh-core/testing';
import { describe, expect, it } from 'vitest';
import { type RetryPolicyOptions, retryPolicy } from './index.js';

/** A tool that fails with `codes[n]` on its n-th run and succeeds once they run out. */
function flaky(name: string, codes: readonly string[], extra: Partial<ToolDefinition> = { idempotent: true }) {
  const runs = { count: 0 };
  const tool = defineTool({
    name,
    description: 'fails with the scripted codes, then succeeds',
    input: z.object({}),
    ...extra,
    execute: () => {
      const code = codes[runs.count];
      runs.count += 1;
      if (code !== undefined) throw new ToolError(code, `run ${runs.count} failed with ${code}`);
      return `ok after ${runs.count} runs`;
    },
  });
  return { tool, runs };
}

function tools(...definitions: ToolDefinition[]): Plugin {
  return { name: 'test-tools', version: '0.0.0', register: (host) => definitions.forEach((d) => void host.tools.register(d)) };
}

const fast: RetryPolicyOptions = { backoff: { initialMs: 1, maxMs: 4, jitter: 'none' } };

async function host(options: RetryPolicyOptions, ...plugins: Plugin[]): Promise<TestHost> {
  return createTestHost({ plugins: [retryPolicy({ ...fast, ...options }), ...plugins] });
}

function attempts(events: readonly AnySessionEvent[]): unknown[] {
  return events.filter((e) => e.type === 'retry/attempt').map((e) => e.data);
}

describe('retryPolicy', () => {
  it('retries an idempotent tool on a retryable code and delivers the first success', async () => {
    const { tool, runs } = flaky('read_remote', ['ECONNRESET', 'ETIMEDOUT']);
    const t = await host({}, tools(tool));
    const outcome = await t.call('read_remote', {}, 'r1');
    expect(outcome).toMatchObject({ status: 'ok', output: 'ok after 3 runs' });
    expect(runs.count).toBe(3);
    const events = t.host.events.list();
    expect(attempts(events)).toEqual([
      expect.objectContaining({ attempt: 1, maxAttempts: 3, code: 'ECONNRESET', decision: 'retry', delayMs: 1 }),
      expect.objectContaining({ attempt: 2, maxAttempts: 3, code: 'ETIMEDOUT', decision: 'retry', delayMs: 2 }),
    ]);
    // The attempts sit between the call and its one result, tied to the call.
    expect(events.map((e) => e.type)).toEqual(['step/start', 'tool/call', 'retry/attempt', 'retry/attempt', 'tool/result', 'step/end']);
    expect(events.filter((e) => e.type === 'retry/attempt').every((e) => e.call === 'r1' && e.token === events[1]?.token)).toBe(true);
    expect(logProblems(events)).toEqual([]);
  });

  it('never retries a tool that is not declared idempotent', async () => {
    const { tool, runs } = flaky('write_remote', ['ECONNRESET'], {});
    const t = await host({}, tools(tool));
    expect(await t.call('write_remote')).toMatchObject({ status: 'error', error: { code: 'ECONNRESET' } });
    expect(runs.count).toBe(1);
    expect(attempts(t.host.events.list())).toEqual([]);
  });

  it('retries tools the integrator declares idempotent, unless excluded', async () => {
    const a = flaky('mcp__fetch', ['ECONNRESET'], {});
    const b = flaky('mcp__post', ['ECONNRESET'], { idempotent: true });
    const t = await host({ idempotentTools: ['mcp__*'], excludeTools: ['mcp__post'] }, tools(a.tool, b.tool));
    expect(await t.call('mcp__fetch')).toMatchObject({ status: 'ok' });
    expect(a.runs.count).toBe(2);
    expect(await t.call('mcp__post')).toMatchObject({ status: 'error' });
    expect(b.runs.count).toBe(1);
  });

  it('does not retry a code that is not declared retryable', async () => {
    const { tool, runs } = flaky('read_remote', ['NOT_FOUND']);
    const t = await host({}, tools(tool));
    expect(await t.call('read_remote')).toMatchObject({ status: 'error', error: { code: 'NOT_FOUND' } });
    expect(runs.count).toBe(1);
    const custom = flaky('read_other', ['HTTP_503']);
    const u = await host({ retryOn: ['HTTP_503'] }, tools(custom.tool));
    expect(await u.call('read_other')).toMatchObject({ status: 'ok' });
    expect(custom.runs.count).toBe(2);
  });

  it('gives up after maxAttempts and returns the last failure', async () => {
    const { tool, runs } = flaky('read_remote', ['ECONNRESET', 'ECONNRESET', 'EPIPE', 'ECONNRESET']);
    const t = await host({ maxAttempts: 3 }, tools(tool));
    expect(await t.call('read_remote')).toMatchObject({ status: 'error', error: { code: 'EPIPE', message: 'run 3 failed with EPIPE' } });
    expect(runs.count).toBe(3);
    const logged = attempts(t.host.events.list());
    expect(logged.map((d) => (d as { decision: string }).decision)).toEqual(['retry', 'retry', 'exhausted']);
    expect(logged[2]).not.toHaveProperty('delayMs');
  });

  it('never runs, so never retries, a call a guard denied', async () => {
    const { tool, runs } = flaky('read_remote', ['ECONNRESET']);
    const t = await host({}, tools(tool));
    t.host.guards.register({ id: 'no', check: () => ({ deny: 'not today' }) });
    expect(await t.call('read_remote')).toMatchObject({ status: 'denied', code: 'GUARD_DENIED' });
    expect(runs.count).toBe(0);
    expect(attempts(t.host.events.list())).toEqual([]);
  });

  it('does not retry a call whose output a post-execute tap blocked', async () => {
    const { tool, runs } = flaky('read_remote', []);
    const t = await host({}, tools(tool));
    t.host.hooks.postExecute.tap('blocker', () => ({ block: 'withheld' }));
    expect(await t.call('read_remote')).toMatchObject({ status: 'blocked', reason: 'withheld' });
    expect(runs.count).toBe(1);
  });

  it('stops retrying, and says so, when the attempt cannot be logged', async () => {
    const { tool, runs } = flaky('read_remote', ['ECONNRESET']);
    const sink = {
      append(event: AnySessionEvent) {
        if (event.type === 'retry/attempt') throw new Error('disk full');
      },
    };
    const t = await createTestHost({ sink, plugins: [retryPolicy(fast), tools(tool)] });
    expect(await t.call('read_remote')).toMatchObject({ status: 'error', error: { code: 'ECONNRESET' } });
    expect(runs.count).toBe(1);
    expect(t.host.diagnostics.list().map((d) => d.code)).toContain('RETRY_EVENT_FAILED');
  });

  it('settles at once with the abort reason when the step is cancelled during a backoff', async () => {
    const { tool, runs } = flaky('read_remote', ['ECONNRESET']);
    const t = await createTestHost({
      plugins: [retryPolicy({ backoff: { initialMs: 60_000, maxMs: 60_000, jitter: 'none' } }), tools(tool)],
    });
    const controller = new AbortController();
    t.host.events.subscribe((event) => {
      if (event.type === 'retry/attempt') setImmediate(() => controller.abort());
    });
    const { results } = await t.host.runStep({ calls: [{ id: 'c', name: 'read_remote', args: {} }] }, { signal: controller.signal });
    expect(results[0]?.outcome).toMatchObject({
      status: 'error',
      by: 'retry-policy',
      error: { code: 'ABORTED', data: { lastError: { code: 'ECONNRESET' } } },
    });
    expect(runs.count).toBe(1);
  });

  it('retries nothing when maxAttempts is 1', async () => {
    const { tool, runs } = flaky('read_remote', ['ECONNRESET']);
    const t = await host({ maxAttempts: 1 }, tools(tool));
    expect(await t.call('read_remote')).toMatchObject({ status: 'error' });
    expect(runs.count).toBe(1);
  });

  it('registers the retry/attempt event type for catalogs', async () => {
    const t = await host({});
    expect(t.host.events.schemas().has('retry/attempt')).toBe(true);
  });

  it('refuses bad options with INVALID_OPTIONS naming the field', () => {
    expect(() => retryPolicy({ maxAttempts: 0 })).toThrow(/retryPolicy: maxAttempts:/);
    expect(() => retryPolicy({ retryOn: [''] })).toThrow(/retryPolicy: retryOn\.0:/);
    expect(() => retryPolicy({ backoff: { initialMs: 10, maxMs: 5 } })).toThrow(
      /retryPolicy: backoff\.initialMs: initialMs must not exceed maxMs/,
    );
    expect(() => retryPolicy({ backoff: { jitter: 'some' as 'full' } })).toThrow(/backoff\.jitter/);
    expect(() => retryPolicy({ random: 0.5 as unknown as () => number })).toThrow(/random: must be a function/);
    expect(() => retryPolicy({ attempts: 2 } as RetryPolicyOptions)).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
  });
});
