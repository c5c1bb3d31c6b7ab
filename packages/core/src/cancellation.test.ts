import { describe, expect, it } from 'vitest';
import { Cancellation, type DispatchOutcome, DshError, defineTool, type ExecuteTap, z } from './index.js';
import { createTestHost } from './testing/index.js';

describe('Cancellation', () => {
  it('makes its signal only when read, already aborted if it was', () => {
    const c = new Cancellation();
    const heard: unknown[] = [];
    const stop = c.onAbort(() => heard.push('first'));
    c.onAbort(() => heard.push('second'));
    stop();
    c.abort('why');
    c.abort('again');
    expect(heard).toEqual(['second']);
    expect(c.signal.aborted).toBe(true);
    expect(c.signal.reason).toBe('why');
    c.onAbort(() => heard.push('late'));
    expect(heard).toEqual(['second', 'late']);
  });

  it('follows a plain AbortSignal', () => {
    const controller = new AbortController();
    const c = Cancellation.fromSignal(controller.signal);
    expect(c.aborted).toBe(false);
    controller.abort('stop');
    expect(c.reason).toBe('stop');
    expect(Cancellation.fromSignal(AbortSignal.abort('early')).reason).toBe('early');
  });

  it('carries an execute tap deadline to the body, and its abort reaches the body signal', async () => {
    const t = await createTestHost({ abortGraceMs: 20 });
    const seen: { deadline: number | undefined; reason?: unknown }[] = [];
    t.host.tools.register(
      defineTool({
        name: 'wait',
        description: 'Waits for its signal.',
        input: z.object({}),
        execute: (_args, ctx) =>
          new Promise((_resolve, reject) => {
            seen.push({ deadline: ctx.deadline });
            ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
          }),
      }),
    );
    t.host.hooks.execute.tap('deadline', (ctx, next) => {
      const inner = new Cancellation({ deadline: performance.now() + 60_000 });
      ctx.cancellation.onAbort(() => inner.abort(ctx.cancellation.reason));
      setTimeout(() => inner.abort(new DshError('TOOL_TIMEOUT', 'too slow')), 5);
      return next({ cancellation: inner });
    });
    const outcome = await t.call('wait', {});
    expect(seen).toHaveLength(1);
    expect(seen[0]?.deadline).toBeGreaterThan(performance.now());
    expect(outcome).toMatchObject({ status: 'error', error: { code: 'TOOL_TIMEOUT', message: 'too slow' } });
  });

  it('aborts children with its reason, also a child made after the abort', () => {
    const parent = new Cancellation();
    const child = new Cancellation({ parent });
    const grandchild = new Cancellation({ parent: child });
    parent.abort('stop');
    expect([child.reason, grandchild.reason, child.expired]).toEqual(['stop', 'stop', false]);
    expect(new Cancellation({ parent }).reason).toBe('stop');
  });

  it('marks an abort by its deadline as expired, with a TOOL_TIMEOUT reason unless a subclass gives one', () => {
    const c = new Cancellation({ deadline: 1 });
    c.expire();
    expect(c.expired).toBe(true);
    expect(c.reason).toMatchObject({ code: 'TOOL_TIMEOUT' });
    c.expire();
    expect(c.expired).toBe(true);
    const byHand = new Cancellation();
    byHand.abort('user');
    byHand.expire();
    expect([byHand.expired, byHand.reason]).toEqual([false, 'user']);
  });
});

/** A tap that runs the rest of the chain under `make(ctx)`. */
function under(make: (outer: Cancellation) => Cancellation): ExecuteTap {
  return (ctx, next) => next({ cancellation: make(ctx.cancellation) });
}

/** A cancellation that answers with its own outcome once aborted. */
class Labelled extends Cancellation {
  override deadlineReason(): DshError {
    return new DshError('MY_TIMEOUT', 'mine');
  }

  override outcomeOnAbort(settled: DispatchOutcome | undefined): DispatchOutcome {
    return {
      status: 'error',
      stage: 'execute',
      by: 'labelled',
      error: { code: 'LABELLED', message: settled === undefined ? 'abandoned' : `within grace: ${settled.status}` },
    };
  }
}

describe('a tap cancellation in the pipeline', () => {
  const hang = defineTool({
    name: 'hang',
    description: 'Never settles.',
    input: z.object({}),
    execute: () => new Promise<never>(() => undefined),
  });
  const obey = defineTool({
    name: 'obey',
    description: 'Settles when aborted.',
    input: z.object({}),
    execute: (_args, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))),
  });
  const quick = defineTool({ name: 'quick', description: 'Answers at once.', input: z.object({}), execute: async () => 'done' });

  it('is aborted by core at its deadline, and the call settles after its own grace period without the body', async () => {
    const t = await createTestHost({ abortGraceMs: 60_000 });
    t.host.tools.register(hang);
    t.host.hooks.execute.tap(
      'deadline',
      under((outer) => new Cancellation({ parent: outer, deadline: performance.now() + 10, graceMs: 10 })),
    );
    expect(await t.call('hang', {})).toMatchObject({ status: 'error', error: { code: 'TOOL_TIMEOUT' } });
  });

  it('answers with outcomeOnAbort, given what the chain answered within the grace period', async () => {
    const t = await createTestHost();
    t.host.tools.register(obey);
    t.host.tools.register(hang);
    t.host.hooks.execute.tap(
      'labelled',
      under((outer) => new Labelled({ parent: outer, deadline: performance.now() + 10, graceMs: 20 })),
    );
    expect(await t.call('obey', {})).toMatchObject({ by: 'labelled', error: { code: 'LABELLED', message: 'within grace: error' } });
    expect(await t.call('hang', {})).toMatchObject({ by: 'labelled', error: { message: 'abandoned' } });
  });

  it('hands the body the subclass reason at the deadline', async () => {
    const t = await createTestHost();
    const reasons: unknown[] = [];
    t.host.tools.register(
      defineTool({
        name: 'watch',
        description: 'Reports its abort reason.',
        input: z.object({}),
        execute: (_args, ctx) =>
          new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve(reasons.push(ctx.signal.reason)))),
      }),
    );
    t.host.hooks.execute.tap(
      'labelled',
      under((outer) => new Labelled({ parent: outer, deadline: performance.now() + 5, graceMs: 50 })),
    );
    await t.call('watch', {});
    expect(reasons).toEqual([expect.objectContaining({ code: 'MY_TIMEOUT' })]);
  });

  it('delivers a call that finishes before the deadline as it is, and follows the step signal through its parent', async () => {
    const t = await createTestHost({ abortGraceMs: 10 });
    t.host.tools.register(quick);
    t.host.tools.register(obey);
    t.host.hooks.execute.tap(
      'deadline',
      under((outer) => new Cancellation({ parent: outer, deadline: performance.now() + 60_000 })),
    );
    expect(await t.call('quick', {})).toMatchObject({ status: 'ok', output: 'done' });
    const controller = new AbortController();
    const step = t.host.runStep({ calls: [{ id: 'c1', name: 'obey', args: {} }] }, { signal: controller.signal });
    setTimeout(() => controller.abort(new DshError('USER_STOP', 'stopped by the user')), 5);
    const { results } = await step;
    expect(results[0]?.outcome).toMatchObject({ status: 'error', error: { code: 'USER_STOP' } });
  });

  it('turns an outcomeOnAbort that throws into an error outcome', async () => {
    class Broken extends Cancellation {
      override outcomeOnAbort(): DispatchOutcome {
        throw new Error('boom');
      }
    }
    const t = await createTestHost();
    t.host.tools.register(obey);
    t.host.hooks.execute.tap(
      'broken',
      under((outer) => new Broken({ parent: outer, deadline: performance.now() + 5, graceMs: 20 })),
    );
    expect(await t.call('obey', {})).toMatchObject({
      status: 'error',
      error: { code: 'TOOL_FAILED', message: expect.stringContaining('boom') },
    });
  });
});
