import { describe, expect, it } from 'vitest';
import { type AnySessionEvent, defineTool, ToolError, z } from './index.js';
import { createTestHost, logProblems } from './testing/index.js';

function deferred() {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** A tool that ignores its signal and settles only when the test says so. */
function deafTool() {
  const control = { release: (_fail?: boolean) => undefined as void, started: deferred() };
  const tool = defineTool({
    name: 'deploy',
    description: 'Ignores its signal until released.',
    input: z.object({}),
    execute: () =>
      new Promise<string>((resolve, reject) => {
        control.release = (fail) => (fail ? reject(new ToolError('DEPLOY_FAILED', 'deploy failed')) : resolve('done'));
        control.started.resolve();
      }),
  });
  return { tool, control };
}

const nextEvent = (events: { subscribe(fn: (e: AnySessionEvent) => void): () => void }, type: string) =>
  new Promise<AnySessionEvent>((resolve) => {
    const stop = events.subscribe((e) => {
      if (e.type === type) {
        stop();
        resolve(e);
      }
    });
  });

describe('tool/late-settlement (issue 16 item 2)', () => {
  it('logs a body that settles after its call timed out, after the tool/result, without changing the result', async () => {
    const t = await createTestHost({ abortGraceMs: 5, dispatchTimeoutMs: 20 });
    const { tool, control } = deafTool();
    t.host.tools.register(tool);
    const outcome = await t.call('deploy', {}, 'd1');
    expect(outcome).toMatchObject({ status: 'error', error: { code: 'TOOL_TIMEOUT' } });
    const late = nextEvent(t.host.events, 'tool/late-settlement');
    control.release();
    const event = await late;
    expect(event).toMatchObject({ call: 'd1', data: { name: 'deploy', status: 'ok', graceMs: 5 } });
    expect(event.data).toHaveProperty('elapsedMs');
    const events = t.host.events.list();
    // The step ended with the call's result; the body settled after that.
    expect(events.map((e) => e.type)).toEqual(['step/start', 'tool/call', 'tool/result', 'step/end', 'tool/late-settlement']);
    expect(events[2]?.data).toMatchObject({ outcome: { status: 'error', error: { code: 'TOOL_TIMEOUT' } } });
    expect(logProblems(events)).toEqual([]);
  });

  it('waits for the tool/result when the body settles while the result is still being finished', async () => {
    const t = await createTestHost({ abortGraceMs: 5, dispatchTimeoutMs: 20 });
    const { tool, control } = deafTool();
    t.host.tools.register(tool);
    const observing = deferred();
    const observed = deferred();
    t.host.hooks.result.tap('slow-observer', () => {
      observed.resolve();
      return observing.promise;
    });
    const late = nextEvent(t.host.events, 'tool/late-settlement');
    const call = t.call('deploy', {}, 'd2');
    await observed.promise;
    control.release(true);
    // Give the late body every chance to be logged early, then let the result commit.
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(t.host.events.list().map((e) => e.type)).toEqual(['step/start', 'tool/call']);
    observing.resolve();
    await call;
    expect((await late).data).toMatchObject({ status: 'error', code: 'DEPLOY_FAILED' });
    // The late settlement waited for the result; whether the step ended before it is a matter of turns.
    const callEvents = t.host.events.list().filter((e) => e.call === 'd2');
    expect(callEvents.map((e) => e.type)).toEqual(['tool/call', 'tool/result', 'tool/late-settlement']);
    expect(logProblems(t.host.events.list())).toEqual([]);
  });

  it('finds a late settlement logged before its result, and an approval out of order', () => {
    const base = { session: 's', at: '2026-01-01T00:00:00.000Z', call: 'c', token: 't' };
    const call = { ...base, seq: 1, type: 'tool/call', data: { name: 'x', args: {} } };
    const late = { ...base, seq: 2, type: 'tool/late-settlement', data: { name: 'x', status: 'ok', elapsedMs: 1, graceMs: 1 } };
    const result = { ...base, seq: 3, type: 'tool/result', data: { name: 'x', outcome: { status: 'ok', stage: 'execute', output: null } } };
    expect(logProblems([call, late, result].map((e, i) => ({ ...e, seq: i + 1 })) as AnySessionEvent[])).toEqual([
      'call c has a tool/late-settlement before its tool/result',
    ]);
    const answer = { ...base, type: 'approval/answer', data: { answer: 'allowed-once', source: 'provider', elapsedMs: 1 } };
    const request = { ...base, type: 'approval/request', data: { name: 'x', args: {} } };
    expect(logProblems([call, answer, request, result].map((e, i) => ({ ...e, seq: i + 1 })) as AnySessionEvent[])).toEqual([
      'call c has an approval/answer without an approval/request before it',
      'call c has an approval/request without an approval/answer',
    ]);
    const body = { ...base, type: 'todo/write', data: { todos: [] } };
    expect(logProblems([call, request, body, answer, result].map((e, i) => ({ ...e, seq: i + 1 })) as AnySessionEvent[])).toEqual([
      'call c has a todo/write event (from its body) before its approval/answer',
    ]);
    expect(logProblems([call, request, answer, body, result].map((e, i) => ({ ...e, seq: i + 1 })) as AnySessionEvent[])).toEqual([]);
    expect(logProblems([call, request, result, answer].map((e, i) => ({ ...e, seq: i + 1 })) as AnySessionEvent[])).toEqual([
      'call c has an approval/request without an approval/answer',
      'call c has an approval/answer after its tool/result',
    ]);
  });
});
