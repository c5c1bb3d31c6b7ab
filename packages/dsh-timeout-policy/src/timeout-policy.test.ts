import { type DispatchOutcome, defineTool, type ErrorOutcome, type Outcome, type Plugin, z } from '@deepseek-ai/dsh-core';
import { createTestHost, logProblems, type TestHost } from '@deepseek-ai/dsh-core/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type TimeoutPolicyOptions, timeoutPolicy } from './index.js';

/** A plugin registering the tools a test needs. */
function tools(...definitions: Parameters<typeof defineTool>[0][]): Plugin {
  return { name: 'test-tools', version: '0.0.0', register: (host) => definitions.forEach((d) => void host.tools.register(d)) };
}

const never = defineTool({
  name: 'never',
  description: 'ignores its signal and never settles',
  input: z.object({}),
  execute: () => new Promise<never>(() => undefined),
});

/** Resolves `value` after `ms`, ignoring the signal. */
function lateTool(ms: number, value: string) {
  return defineTool({
    name: 'late',
    description: 'ignores its signal and settles late',
    input: z.object({}),
    execute: () => new Promise<string>((resolve) => setTimeout(() => resolve(value), ms)),
  });
}

/** Stops when aborted, rethrowing the signal's reason, and remembers the reason. */
function obedient(seen: unknown[]) {
  return defineTool({
    name: 'obedient',
    description: 'stops when its signal aborts',
    input: z.object({}),
    execute: (_args, ctx) =>
      new Promise<string>((_resolve, reject) => {
        const stop = (): void => {
          seen.push(ctx.signal.reason);
          reject(ctx.signal.reason);
        };
        // A loaded machine may pass the deadline before execute runs; the event has fired then.
        if (ctx.signal.aborted) stop();
        else ctx.signal.addEventListener('abort', stop, { once: true });
      }),
  });
}

/** Reports the deadline its signal carries, in ms from now (time stands still under fake timers). */
const probe = defineTool({
  name: 'probe',
  description: 'reports the remaining deadline',
  input: z.object({ timeout: z.number().optional(), secs: z.number().optional() }),
  timeoutMs: 5_000,
  execute: (_args, ctx) => ({ remaining: ctx.deadline === undefined ? null : Math.max(0, ctx.deadline - performance.now()) }),
});

async function host(options: TimeoutPolicyOptions, ...plugins: Plugin[]): Promise<TestHost> {
  return createTestHost({ abortGraceMs: 60_000, plugins: [timeoutPolicy(options), ...plugins] });
}

/** Starts a call and tracks whether it has settled, for fake-timer tests. */
function track(p: Promise<Outcome>): { readonly settled: () => boolean; readonly outcome: Promise<Outcome> } {
  let done = false;
  const outcome = p.then((o) => {
    done = true;
    return o;
  });
  return { settled: () => done, outcome };
}

function errorOf(outcome: Outcome): ErrorOutcome['error'] {
  if (outcome.status !== 'error') throw new Error(`expected an error outcome, got ${JSON.stringify(outcome)}`);
  return outcome.error;
}

describe('timeoutPolicy with fake timers', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('settles a body that never settles with TOOL_TIMEOUT once the deadline and the grace period have passed', async () => {
    const t = await host({ defaultMs: 1_000, graceMs: 500 }, tools(never));
    const call = track(t.call('never'));
    await vi.advanceTimersByTimeAsync(1_499);
    expect(call.settled()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const outcome = await call.outcome;
    expect(outcome).toMatchObject({ status: 'error', stage: 'execute', by: 'timeout-policy' });
    expect(errorOf(outcome)).toEqual({
      code: 'TOOL_TIMEOUT',
      message: '"never" did not finish within its 1000 ms deadline, so it was stopped',
      data: { cause: 'deadline', deadlineMs: 1_000, elapsedMs: 1_500, source: 'default', settled: 'abandoned' },
    });
    expect(t.host.diagnostics.list().map((d) => d.code)).toEqual(['TIMEOUT_BODY_ABANDONED']);
    expect(logProblems(t.host.events.list())).toEqual([]);
  });

  it('aborts the signal at the deadline with a TOOL_TIMEOUT reason and settles as soon as the body stops', async () => {
    const seen: unknown[] = [];
    const t = await host({ defaultMs: 1_000, graceMs: 500 }, tools(obedient(seen)));
    const call = track(t.call('obedient'));
    await vi.advanceTimersByTimeAsync(999);
    expect(seen).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    const outcome = await call.outcome;
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ name: 'DshError', code: 'TOOL_TIMEOUT', data: { deadlineMs: 1_000, elapsedMs: 1_000 } });
    const error = errorOf(outcome);
    expect(error.code).toBe('TOOL_TIMEOUT');
    expect(error.data).toMatchObject({
      elapsedMs: 1_000,
      settled: 'within-grace',
      body: { status: 'error', error: { code: 'TOOL_TIMEOUT' } },
    });
    expect(t.host.diagnostics.list()).toEqual([]);
  });

  it('discards a body that settles after the grace period and records the late settlement', async () => {
    const t = await host({ defaultMs: 1_000, graceMs: 500 }, tools(lateTool(4_000, 'too late')));
    const call = track(t.call('late'));
    await vi.advanceTimersByTimeAsync(1_500);
    expect(errorOf(await call.outcome).code).toBe('TOOL_TIMEOUT');
    await vi.advanceTimersByTimeAsync(2_500);
    expect(t.host.diagnostics.list().map((d) => [d.code, d.source])).toEqual([
      ['TIMEOUT_BODY_ABANDONED', 'tap:tools/execute:timeout-policy'],
      // Core's race, which the policy's cancellation runs under, records the late settlement.
      ['LATE_SETTLEMENT', 'tool:late'],
    ]);
    const results = t.host.events.list().filter((e) => e.type === 'tool/result');
    expect(results).toHaveLength(1);
    expect(JSON.stringify(results)).not.toContain('too late');
  });

  it('delivers the outcome of a call that finishes in time and leaves nothing to fire', async () => {
    const t = await host({ defaultMs: 1_000, graceMs: 500 }, tools(lateTool(999, 'in time')));
    const call = track(t.call('late'));
    await vi.advanceTimersByTimeAsync(999);
    expect(await call.outcome).toMatchObject({ status: 'ok', output: 'in time' });
    // The shared timer may still be armed for the old deadline, unref'd; when it fires it finds nothing.
    await vi.advanceTimersByTimeAsync(5_000);
    expect(vi.getTimerCount()).toBe(0);
    expect(t.host.diagnostics.list()).toEqual([]);
  });

  it('settles even when an inner tap never settles and never calls next', async () => {
    const stuckTap: Plugin = {
      name: 'stuck-tap',
      version: '0.0.0',
      register: (h) => {
        h.hooks.execute.tap('stuck', () => new Promise<DispatchOutcome>(() => undefined));
      },
    };
    const t = await host({ defaultMs: 200, graceMs: 100 }, tools(lateTool(10, 'never reached')), stuckTap);
    const call = track(t.call('late'));
    await vi.advanceTimersByTimeAsync(300);
    expect(call.settled()).toBe(true);
    expect(errorOf(await call.outcome).data).toMatchObject({ deadlineMs: 200, elapsedMs: 300, settled: 'abandoned' });
  });

  it('takes the cancellation of the step through the same abort, grace and settle path', async () => {
    const t = await host({ defaultMs: 10_000, graceMs: 500 }, tools(never));
    const controller = new AbortController();
    let settled = false;
    const step = t.host.runStep({ calls: [{ id: 'c1', name: 'never', args: {} }] }, { signal: controller.signal }).then((r) => {
      settled = true;
      return r;
    });
    await vi.advanceTimersByTimeAsync(100);
    controller.abort();
    await vi.advanceTimersByTimeAsync(499);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const { results } = await step;
    const outcome = results[0]?.outcome as Outcome;
    expect(outcome).toMatchObject({ status: 'error', by: 'timeout-policy' });
    expect(errorOf(outcome)).toMatchObject({
      code: 'ABORTED',
      data: { cause: 'cancelled', deadlineMs: 10_000, elapsedMs: 600, settled: 'abandoned' },
    });
  });

  it('keeps the code of a cancellation reason that carries one', async () => {
    const t = await host({ defaultMs: 10_000, graceMs: 0 }, tools(never));
    const controller = new AbortController();
    const step = t.host.runStep({ calls: [{ id: 'c1', name: 'never', args: {} }] }, { signal: controller.signal });
    await vi.advanceTimersByTimeAsync(10);
    const { DshError } = await import('@deepseek-ai/dsh-core');
    controller.abort(new DshError('USER_STOPPED', 'the user pressed stop'));
    await vi.advanceTimersByTimeAsync(1);
    const { results } = await step;
    expect(errorOf(results[0]?.outcome as Outcome)).toMatchObject({ code: 'USER_STOPPED', message: 'the user pressed stop' });
  });

  it('gives parallel calls deadlines of their own', async () => {
    const quick = defineTool({
      name: 'quick',
      description: 'settles after 100 ms',
      input: z.object({}),
      parallel: true,
      execute: () => new Promise<string>((resolve) => setTimeout(() => resolve('quick'), 100)),
    });
    const stuck = defineTool({ ...never, name: 'stuck', parallel: true });
    const t = await host({ defaultMs: 1_000, graceMs: 0 }, tools(quick, stuck));
    const step = t.host.runStep({
      calls: [
        { id: 'a', name: 'stuck', args: {} },
        { id: 'b', name: 'quick', args: {} },
      ],
    });
    // A zero grace still waits one timer turn.
    await vi.advanceTimersByTimeAsync(1_001);
    const { results } = await step;
    expect(results.map((r) => (r.outcome.status === 'error' ? r.outcome.error.code : r.outcome.status))).toEqual(['TOOL_TIMEOUT', 'ok']);
  });
});

describe('deadline resolution', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  async function remaining(options: TimeoutPolicyOptions, args: Record<string, unknown> = {}): Promise<unknown> {
    const t = await host(options, tools(probe));
    const outcome = await t.call('probe', args);
    if (outcome.status !== 'ok') throw new Error(JSON.stringify(outcome));
    return (outcome.output as { remaining: unknown }).remaining;
  }

  it("uses the tool's declared timeoutMs when the policy names no deadline for it", async () => {
    expect(await remaining({ defaultMs: 1_000 })).toBe(5_000);
  });

  it('lets a per-tool entry, exact or glob, override the tool and the default', async () => {
    expect(await remaining({ tools: { probe: 700 } })).toBe(700);
    expect(await remaining({ tools: { 'pro*': 800 } })).toBe(800);
    expect(await remaining({ tools: { 'pro*': 800, probe: 900 } })).toBe(900);
    expect(await remaining({ tools: { 'other*': 800 } })).toBe(5_000);
  });

  it('uses the default for a tool that declares no deadline', async () => {
    const plain = defineTool({ ...probe, timeoutMs: undefined as never, name: 'plain' });
    const t = await host({ defaultMs: 1_234 }, tools(plain));
    expect(await t.call('plain')).toMatchObject({ output: { remaining: 1_234 } });
  });

  it("clamps the tool's declared timeoutMs to maxMs", async () => {
    expect(await remaining({ defaultMs: 1_000, maxMs: 2_000 })).toBe(2_000);
  });

  it("takes the model's timeout argument, clamped to maxMs, over every other source", async () => {
    expect(await remaining({ tools: { probe: 700 } }, { timeout: 3_000 })).toBe(3_000);
    expect(await remaining({ maxMs: 10_000 }, { timeout: 999_999 })).toBe(10_000);
  });

  it('ignores a timeout argument that is zero or negative, so the model cannot remove the deadline', async () => {
    expect(await remaining({}, { timeout: 0 })).toBe(5_000);
    expect(await remaining({}, { timeout: -5 })).toBe(5_000);
  });

  it('reads the timeout argument under the configured name and unit', async () => {
    expect(await remaining({ timeoutArg: 'secs', timeoutArgUnit: 's' }, { secs: 2 })).toBe(2_000);
    expect(await remaining({ timeoutArg: false }, { timeout: 3_000 })).toBe(5_000);
  });

  it('gives a tool the integrator exempted no deadline at all, whatever the model asks', async () => {
    expect(await remaining({ tools: { probe: 'none' } }, { timeout: 3_000 })).toBeNull();
  });

  it('shows inner taps the deadline, which covers every time they call next', async () => {
    let calls = 0;
    const seen: (number | undefined)[] = [];
    const twice: Plugin = {
      name: 'twice',
      version: '0.0.0',
      register: (h) => {
        h.hooks.execute.tap('twice', async (ctx, next) => {
          seen.push(ctx.cancellation.deadline);
          await next();
          return next();
        });
      },
    };
    const slow = defineTool({
      name: 'slow',
      description: 'takes 600 ms each time',
      input: z.object({}),
      execute: (_a, ctx) =>
        new Promise<string>((resolve, reject) => {
          calls += 1;
          if (ctx.signal.aborted) return reject(ctx.signal.reason);
          const timer = setTimeout(() => resolve('done'), 600);
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(ctx.signal.reason);
          });
        }),
    });
    const t = await host({ defaultMs: 1_000, graceMs: 0 }, tools(slow), twice);
    const start = performance.now();
    const call = track(t.call('slow'));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls).toBe(2);
    expect(seen).toEqual([start + 1_000]);
    expect(errorOf(await call.outcome)).toMatchObject({ code: 'TOOL_TIMEOUT', data: { elapsedMs: 1_000 } });
  });
});

describe('timeoutPolicy options', () => {
  it('refuses bad options with INVALID_OPTIONS naming the field', () => {
    expect(() => timeoutPolicy({ defaultMs: -1 })).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
    expect(() => timeoutPolicy({ defaultMs: -1 })).toThrow(/timeoutPolicy: defaultMs:/);
    expect(() => timeoutPolicy({ tools: { bash: 0 } })).toThrow(/timeoutPolicy: tools\.bash:/);
    expect(() => timeoutPolicy({ defaultMs: 5_000, maxMs: 1_000 })).toThrow(/defaultMs must not exceed maxMs/);
    expect(() => timeoutPolicy({ graceMs: 1.5 })).toThrow(/graceMs/);
    expect(() => timeoutPolicy({ deadline: 5 } as TimeoutPolicyOptions)).toThrow(/timeoutPolicy: options: .*deadline/);
  });

  it('places its tap by stage, outside taps of stage 0 by default', async () => {
    const t = await createTestHost({ plugins: [timeoutPolicy()] });
    t.host.hooks.execute.tap('first-registered', (_ctx, next) => next());
    expect(t.host.hooks.execute.names()).toEqual(['timeout-policy', 'first-registered']);
    const u = await createTestHost({ plugins: [timeoutPolicy({ stage: 10 })] });
    u.host.hooks.execute.tap('other', (_ctx, next) => next());
    expect(u.host.hooks.execute.names()).toEqual(['other', 'timeout-policy']);
  });
});
