import { describe, expect, it } from 'vitest';
import { Cancellation, DshError, defineTool, z } from './index.js';
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
      const inner = new Cancellation({ deadline: 12345 });
      ctx.cancellation.onAbort(() => inner.abort(ctx.cancellation.reason));
      setTimeout(() => inner.abort(new DshError('TOOL_TIMEOUT', 'too slow')), 5);
      return next({ cancellation: inner });
    });
    const outcome = await t.call('wait', {});
    expect(seen).toEqual([{ deadline: 12345 }]);
    expect(outcome).toMatchObject({ status: 'error', error: { code: 'TOOL_TIMEOUT', message: 'too slow' } });
  });
});
