import { describe, expect, it } from 'vitest';
import { echoTool, sleepTool } from './__fixtures__/tools.js';
import { defineTool, z } from './index.js';
import { createTestHost, logProblems, scriptedApproval } from './testing/index.js';

describe('scheduling within a step', () => {
  it('runs policy stages in the model order, even while earlier parallel bodies run', async () => {
    const order: string[] = [];
    const approval = scriptedApproval((request) => {
      order.push(`ask:${request.call.id}`);
      return 'allowed-once';
    });
    const t = await createTestHost({ defaultDecision: 'ask', approval: approval.provider });
    t.host.tools.register(sleepTool(order, { parallel: true }));
    t.host.hooks.preExecute.tap('trace', (state) => {
      order.push(`pre:${state.call.id}`);
      return undefined;
    });
    await t.host.runStep({
      calls: [
        { id: '1', name: 'sleep', args: { ms: 300, label: '1' } },
        { id: '2', name: 'sleep', args: { ms: 1, label: '2' } },
        { id: '3', name: 'sleep', args: { ms: 1, label: '3' } },
      ],
    });
    const policy = order.filter((o) => o.startsWith('pre:') || o.startsWith('ask:'));
    expect(policy).toEqual(['pre:1', 'ask:1', 'pre:2', 'ask:2', 'pre:3', 'ask:3']);
    expect(order.indexOf('pre:2')).toBeLessThan(order.indexOf('end:1'));
  });

  it('overlaps parallel bodies, commits results and tool/result events in the model order', async () => {
    const order: string[] = [];
    const t = await createTestHost();
    t.host.tools.register(sleepTool(order, { parallel: true }));
    const { results } = await t.host.runStep({
      calls: [
        { id: 'slow', name: 'sleep', args: { ms: 300, label: 'slow' } },
        { id: 'fast', name: 'sleep', args: { ms: 1, label: 'fast' } },
      ],
    });
    expect(order.indexOf('start:fast')).toBeLessThan(order.indexOf('end:slow'));
    expect(order.indexOf('end:fast')).toBeLessThan(order.indexOf('end:slow'));
    expect(results.map((r) => r.id)).toEqual(['slow', 'fast']);
    const resultEvents = t.host.events.list().filter((e) => e.type === 'tool/result');
    expect(resultEvents.map((e) => e.call)).toEqual(['slow', 'fast']);
  });

  it('bounds parallel bodies by maxParallel', async () => {
    let running = 0;
    let peak = 0;
    const t = await createTestHost({ maxParallel: 3 });
    t.host.tools.register(
      defineTool({
        name: 'count',
        description: 'Counts concurrent runs.',
        parallel: true,
        input: z.object({}),
        execute: async () => {
          running += 1;
          peak = Math.max(peak, running);
          await new Promise((r) => setTimeout(r, 3));
          running -= 1;
          return peak;
        },
      }),
    );
    const calls = Array.from({ length: 12 }, (_, i) => ({ id: `c${i}`, name: 'count', args: {} }));
    const { results } = await t.host.runStep({ calls });
    expect(results.every((r) => r.outcome.status === 'ok')).toBe(true);
    expect(peak).toBe(3);
  });

  it('runs a non-parallel body alone: it waits for running bodies, and later bodies wait for it', async () => {
    const order: string[] = [];
    const t = await createTestHost();
    t.host.tools.register(sleepTool(order, { parallel: true, name: 'read' }));
    t.host.tools.register(sleepTool(order, { parallel: false, name: 'write' }));
    await t.host.runStep({
      calls: [
        { id: 'r1', name: 'read', args: { ms: 15, label: 'r1' } },
        { id: 'w', name: 'write', args: { ms: 15, label: 'w' } },
        { id: 'r2', name: 'read', args: { ms: 1, label: 'r2' } },
      ],
    });
    expect(order).toEqual(['start:r1', 'end:r1', 'start:w', 'end:w', 'start:r2', 'end:r2']);
  });

  it('emits the context message once, after every result, in call order', async () => {
    const order: string[] = [];
    const t = await createTestHost();
    t.host.tools.register(sleepTool(order, { parallel: true }));
    t.host.hooks.postExecute.tap('ctx', (state) => ({ addContext: `about ${state.call.id}` }));
    const { context } = await t.host.runStep({
      calls: [
        { id: 'a', name: 'sleep', args: { ms: 20, label: 'a' } },
        { id: 'b', name: 'sleep', args: { ms: 1, label: 'b' } },
      ],
    });
    const events = t.host.events.list();
    expect(events.at(-2)).toMatchObject({ type: 'context/message', data: { text: 'about a\n\nabout b' } });
    expect(events.at(-1)?.type).toBe('step/end');
    expect(events.filter((e) => e.type === 'context/message')).toHaveLength(1);
    expect(context?.parts.map((p) => p.call)).toEqual(['a', 'b']);
    expect(logProblems(events)).toEqual([]);
  });

  it('emits no context message when no call added context', async () => {
    const t = await createTestHost();
    t.host.tools.register(echoTool());
    const result = await t.host.runStep({ calls: [{ id: 'a', name: 'echo', args: { text: 'x' } }] });
    expect(result.context).toBeUndefined();
    expect(t.host.events.list().some((e) => e.type === 'context/message')).toBe(false);
  });
});

describe('cancelling a step', () => {
  it('aborts running bodies and ends calls that had not started with ABORTED_BEFORE_DISPATCH', async () => {
    const order: string[] = [];
    const t = await createTestHost();
    t.host.tools.register(sleepTool(order));
    const controller = new AbortController();
    const pending = t.host.runStep(
      {
        calls: [
          { id: 'running', name: 'sleep', args: { ms: 5000, label: 'running' } },
          { id: 'waiting', name: 'sleep', args: { ms: 1, label: 'waiting' } },
        ],
      },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 10);
    const { results } = await pending;
    expect(results[0]?.outcome).toMatchObject({ status: 'error', error: { code: 'ABORTED' } });
    expect(results[1]?.outcome).toMatchObject({ status: 'error', error: { code: 'ABORTED_BEFORE_DISPATCH' } });
    expect(order).toEqual(['start:running', 'aborted:running']);
    expect(logProblems(t.host.events.list())).toEqual([]);
  });

  it('gives every call of an already-aborted step one ABORTED_BEFORE_DISPATCH result', async () => {
    const runs: string[] = [];
    const t = await createTestHost();
    t.host.tools.register(echoTool(runs));
    const { results } = await t.host.runStep(
      {
        calls: [
          { id: 'a', name: 'echo', args: { text: 'x' } },
          { id: 'b', name: 'echo', args: { text: 'y' } },
        ],
      },
      { signal: AbortSignal.abort() },
    );
    expect(results.map((r) => r.outcome.status === 'error' && r.outcome.error.code)).toEqual([
      'ABORTED_BEFORE_DISPATCH',
      'ABORTED_BEFORE_DISPATCH',
    ]);
    expect(runs).toEqual([]);
    expect(t.host.events.list().filter((e) => e.type === 'tool/call')).toHaveLength(2);
  });

  it('ends a call waiting for a pool slot with ABORTED_BEFORE_DISPATCH', async () => {
    const order: string[] = [];
    const t = await createTestHost({ maxParallel: 1 });
    t.host.tools.register(sleepTool(order, { parallel: true }));
    const controller = new AbortController();
    const pending = t.host.runStep(
      {
        calls: [
          { id: 'a', name: 'sleep', args: { ms: 5000, label: 'a' } },
          { id: 'b', name: 'sleep', args: { ms: 1, label: 'b' } },
        ],
      },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(new Error('user pressed escape')), 10);
    const { results } = await pending;
    expect(results[0]?.outcome).toMatchObject({ error: { code: 'ABORTED', message: expect.stringContaining('user pressed escape') } });
    expect(results[1]?.outcome).toMatchObject({ error: { code: 'ABORTED_BEFORE_DISPATCH' } });
  });
});
