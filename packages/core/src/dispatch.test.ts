import { describe, expect, it } from 'vitest';
import { echoTool, failTool, sleepTool } from './__fixtures__/tools.js';
import { type DispatchOutcome, DshError, defineTool, ToolDenied, z } from './index.js';
import { createTestHost } from './testing/index.js';

describe('the tools/execute waterfall (stage 7)', () => {
  it('runs the first registered tap outermost, unless stage says otherwise', async () => {
    const t = await createTestHost();
    t.host.tools.register(echoTool());
    const order: string[] = [];
    const wrap = (name: string) => async (_ctx: unknown, next: () => Promise<DispatchOutcome>) => {
      order.push(`>${name}`);
      const outcome = await next();
      order.push(`<${name}`);
      return outcome;
    };
    t.host.hooks.execute.tap('outer', wrap('outer'));
    t.host.hooks.execute.tap('inner', wrap('inner'));
    t.host.hooks.execute.tap({ name: 'outermost', stage: -1 }, wrap('outermost'));
    expect(await t.call('echo', { text: 'x' })).toMatchObject({ status: 'ok' });
    expect(order).toEqual(['>outermost', '>outer', '>inner', '<inner', '<outer', '<outermost']);
  });

  it('lets a tap replace the outcome and hand the body a signal of its own', async () => {
    const t = await createTestHost({ abortGraceMs: 20 });
    const order: string[] = [];
    t.host.tools.register(sleepTool(order));
    t.host.hooks.execute.tap('own-deadline', (ctx, next) => {
      const controller = new AbortController();
      ctx.signal.addEventListener('abort', () => controller.abort(ctx.signal.reason));
      setTimeout(() => controller.abort(new DshError('TOOL_TIMEOUT', 'too slow', { data: { deadlineMs: 10 } })), 10);
      return next({ signal: controller.signal });
    });
    const outcome = await t.call('sleep', { ms: 5000, label: 's' });
    expect(outcome).toMatchObject({
      status: 'error',
      stage: 'execute',
      error: { code: 'TOOL_TIMEOUT', message: 'too slow', data: { deadlineMs: 10 } },
    });
    expect(order).toEqual(['start:s', 'aborted:s']);
  });

  it('turns a throwing tap into an error that names it, keeping a DshError code', async () => {
    const t = await createTestHost();
    t.host.tools.register(echoTool());
    t.host.hooks.execute.tap('broken', () => {
      throw new DshError('METRICS_DOWN', 'exporter gone');
    });
    const outcome = await t.call('echo', { text: 'x' });
    expect(outcome).toMatchObject({ status: 'error', by: 'broken', error: { code: 'METRICS_DOWN' } });
    expect(outcome.status === 'error' && outcome.error.message).toContain('broken');
  });

  it('refuses a malformed tap outcome, and a tap that tries to turn a call into blocked', async () => {
    for (const forged of [{ status: 'denied', reason: 'no code' }, { status: 'blocked', code: 'X', reason: 'x' }, null]) {
      const t = await createTestHost();
      t.host.tools.register(echoTool());
      t.host.hooks.execute.tap('forger', () => forged as never);
      t.host.hooks.execute.tap('async-rejecter', async () => Promise.reject(new Error('nope')));
      const outcome = await t.call('echo', { text: 'x' });
      expect(outcome).toMatchObject({ status: 'error', by: 'forger', error: { code: 'TOOL_FAILED' } });
    }
  });

  it('lets a tap deny at dispatch (a quota, say): the body does not run', async () => {
    const runs: string[] = [];
    const t = await createTestHost();
    t.host.tools.register(echoTool(runs));
    t.host.hooks.execute.tap('quota', () => ({
      status: 'denied',
      stage: 'execute',
      code: 'QUOTA',
      reason: 'daily quota used up',
      by: 'quota',
    }));
    expect(await t.call('echo', { text: 'x' })).toMatchObject({ status: 'denied', code: 'QUOTA', by: 'quota' });
    expect(runs).toEqual([]);
  });

  it('settles a step whose execute tap never settles, once the host dispatch deadline passes', async () => {
    const t = await createTestHost({ dispatchTimeoutMs: 20, abortGraceMs: 10 });
    t.host.tools.register(echoTool());
    t.host.hooks.execute.tap('stuck', () => new Promise<DispatchOutcome>(() => undefined));
    const outcome = await t.call('echo', { text: 'x' });
    expect(outcome).toMatchObject({ status: 'error', error: { code: 'TOOL_TIMEOUT', data: { deadlineMs: 20 } } });
  });
});

describe('the tool body (stage 8)', () => {
  it.each([
    ['tool-error', 'FILE_GONE', 'the file is gone', { path: '/x' }],
    ['error', 'TOOL_FAILED', 'boom', undefined],
    ['string', 'TOOL_FAILED', 'a bare string', undefined],
    ['object', 'TOOL_FAILED', '{"weird":true}', undefined],
    ['reject-number', 'TOOL_FAILED', '42', undefined],
  ] as const)('turns a thrown %s into an error outcome', async (how, code, message, data) => {
    const t = await createTestHost();
    t.host.tools.register(failTool());
    const outcome = await t.call('fail', { how });
    expect(outcome).toMatchObject({ status: 'error', stage: 'execute', error: { code, message } });
    if (outcome.status === 'error') expect(outcome.error.data).toEqual(data);
  });

  it('fails an output that does not match the declared output schema with INVALID_TOOL_OUTPUT', async () => {
    const t = await createTestHost();
    t.host.tools.register(
      defineTool({
        name: 'typed',
        description: 'Declares an output.',
        input: z.object({ good: z.boolean() }),
        output: z.object({ count: z.number() }),
        execute: (args) => (args.good ? { count: 1 } : ({ count: 'one' } as unknown as { count: number })),
      }),
    );
    expect(await t.call('typed', { good: true })).toMatchObject({ status: 'ok', output: { count: 1 } });
    const bad = await t.call('typed', { good: false });
    expect(bad).toMatchObject({ status: 'error', error: { code: 'INVALID_TOOL_OUTPUT' } });
    expect(bad.status === 'error' && bad.error.message).toContain('count');
  });

  it('turns a thrown ToolDenied into a final denial that no post-execute tap can replace', async () => {
    const t = await createTestHost();
    t.host.tools.register(
      defineTool({
        name: 'guarded-write',
        description: 'Refuses inside its body.',
        input: z.object({}),
        execute: () => {
          throw new ToolDenied('FS_NOT_READ', 'read the file before editing it', { by: 'read-before-edit' });
        },
      }),
    );
    t.host.hooks.postExecute.tap('replacer', () => ({ replaceOutput: 'fine' }));
    expect(await t.call('guarded-write', {})).toEqual({
      status: 'denied',
      stage: 'execute',
      code: 'FS_NOT_READ',
      reason: 'read the file before editing it',
      by: 'read-before-edit',
    });
  });

  it('gives a body that returns nothing a null output', async () => {
    const t = await createTestHost();
    t.host.tools.register(defineTool({ name: 'void', description: 'Returns nothing.', input: z.object({}), execute: () => undefined }));
    expect(await t.call('void', {})).toMatchObject({ status: 'ok', output: null });
  });

  it('settles a body that ignores its abort once the grace period passes, and records the late result', async () => {
    const t = await createTestHost({ abortGraceMs: 10 });
    let release: () => void = () => undefined;
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    t.host.tools.register(
      defineTool({
        name: 'deaf',
        description: 'Ignores its signal until released.',
        input: z.object({}),
        execute: () =>
          new Promise<string>((resolve) => {
            release = () => resolve('finished anyway');
            started();
          }),
      }),
    );
    const controller = new AbortController();
    const step = t.host.runStep({ calls: [{ id: 's1', name: 'deaf', args: {} }] }, { signal: controller.signal });
    await running;
    controller.abort();
    const { results } = await step;
    expect(results[0]?.outcome).toMatchObject({ status: 'error', error: { code: 'ABORTED' } });
    release();
    await new Promise((r) => setTimeout(r, 0));
    expect(t.host.diagnostics.list().map((d) => d.code)).toContain('LATE_SETTLEMENT');
    expect(t.host.events.list().filter((e) => e.type === 'tool/result')).toHaveLength(1);
  });
});
