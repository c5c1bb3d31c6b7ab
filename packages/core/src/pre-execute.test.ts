import { describe, expect, it } from 'vitest';
import { echoTool } from './__fixtures__/tools.js';
import type { PreExecuteState } from './index.js';
import { createTestHost } from './testing/index.js';

async function setup(defaultDecision: 'allow' | 'ask' | 'deny' = 'allow') {
  const runs: string[] = [];
  const t = await createTestHost({ defaultDecision, tapTimeoutMs: 50 });
  t.host.tools.register(echoTool(runs));
  return { t, runs };
}

describe('the tools/pre-execute waterfall (stage 4)', () => {
  it('passes each tap the state the previous one returned, in tap order', async () => {
    const { t } = await setup('ask');
    const seen: string[] = [];
    t.host.hooks.preExecute.tap('second', (state) => {
      seen.push(`second:${state.decision}:${state.decidedBy}`);
      return undefined;
    });
    t.host.hooks.preExecute.tap({ name: 'first', stage: -1 }, (state) => {
      seen.push(`first:${state.decision}:${state.decidedBy}`);
      return { decision: 'allow', reason: 'ok by first' };
    });
    expect(await t.call('echo', { text: 'x' })).toMatchObject({ status: 'ok' });
    expect(seen).toEqual(['first:ask:undefined', 'second:allow:first']);
  });

  it('rewrites arguments, validates them again and records both in the tool/result event', async () => {
    const { t, runs } = await setup();
    t.host.hooks.preExecute.tap('shout', (state) => ({ args: { text: String(state.args.text).toUpperCase() } }));
    const outcome = await t.call('echo', { text: 'hi' }, 'c1');
    expect(outcome).toMatchObject({ status: 'ok', output: { text: 'HI' } });
    expect(runs).toEqual(['c1:HI']);
    const result = t.host.events.list().find((e) => e.type === 'tool/result');
    expect(result?.data).toMatchObject({ args: { text: 'HI' }, originalArgs: { text: 'hi' } });
  });

  it('fails a call whose rewritten arguments are invalid, naming the tap and the field', async () => {
    const { t, runs } = await setup();
    t.host.hooks.preExecute.tap('breaker', () => ({ args: { text: 5 } }));
    const outcome = await t.call('echo', { text: 'hi' });
    expect(outcome).toMatchObject({ status: 'error', stage: 'pre-execute', by: 'breaker', error: { code: 'INVALID_ARGS' } });
    expect(outcome.status === 'error' && outcome.error.message).toMatch(/breaker.*text/);
    expect(runs).toEqual([]);
  });

  it('ends the waterfall at a deny: later taps do not run and cannot overrule it', async () => {
    const { t, runs } = await setup();
    let laterRan = false;
    t.host.hooks.preExecute.tap('denier', () => ({ decision: 'deny', reason: 'not today' }));
    t.host.hooks.preExecute.tap('allower', () => {
      laterRan = true;
      return { decision: 'allow' };
    });
    const outcome = await t.call('echo', { text: 'x' });
    expect(outcome).toMatchObject({
      status: 'denied',
      stage: 'pre-execute',
      by: 'denier',
      code: 'PRE_EXECUTE_DENIED',
      reason: 'not today',
    });
    expect(laterRan).toBe(false);
    expect(runs).toEqual([]);
  });

  it('denies by the host default when no tap decides and the default is deny', async () => {
    const { t, runs } = await setup('deny');
    const outcome = await t.call('echo', { text: 'x' });
    expect(outcome).toMatchObject({ status: 'denied', code: 'PRE_EXECUTE_DENIED' });
    expect(outcome.status === 'denied' && outcome.reason).toContain('default');
    expect(runs).toEqual([]);
  });

  it.each([
    [
      'throws',
      () => {
        throw new Error('tap exploded');
      },
      'tap exploded',
    ],
    ['rejects', () => Promise.reject(new Error('async explosion')), 'async explosion'],
    ['never settles', () => new Promise<undefined>(() => undefined), 'did not answer within 50 ms'],
    ['returns an unknown decision', () => ({ decision: 'maybe' as 'allow' }), 'unknown decision'],
    ['returns a non-object', () => 'allow' as unknown as undefined, 'other than an update'],
    ['returns non-object args', () => ({ args: [1] as unknown as Record<string, unknown> }), 'not an object'],
    ['returns a non-string reason', () => ({ reason: 5 as unknown as string }), 'not a string'],
  ])('denies (fail closed) when a tap %s', async (_label, fn, message) => {
    const { t, runs } = await setup();
    t.host.hooks.preExecute.tap('bad', fn as (s: PreExecuteState) => undefined);
    const outcome = await t.call('echo', { text: 'x' });
    expect(outcome).toMatchObject({ status: 'denied', stage: 'pre-execute', by: 'bad', code: 'PRE_EXECUTE_FAILED' });
    expect(outcome.status === 'denied' && outcome.reason).toContain(message);
    expect(runs).toEqual([]);
  });

  it('ignores a call identity a tap returns: id, name and token stay', async () => {
    const { t, runs } = await setup();
    t.host.hooks.preExecute.tap('impostor', (state) => ({ ...state, call: { id: 'x', name: 'fail', token: 'z' } }) as never);
    const outcome = await t.call('echo', { text: 'x' }, 'real-id');
    expect(outcome).toMatchObject({ status: 'ok' });
    expect(runs).toEqual(['real-id:x']);
    const events = t.host.events.list().filter((e) => !e.type.startsWith('step/'));
    expect(new Set(events.map((e) => `${e.call}/${e.token}`)).size).toBe(1);
    expect(events.every((e) => e.call === 'real-id')).toBe(true);
  });

  it('denies when a tap tries to mutate the frozen call identity', async () => {
    const { t } = await setup();
    t.host.hooks.preExecute.tap('mutator', (state) => {
      (state.call as { name: string }).name = 'other';
      return undefined;
    });
    const outcome = await t.call('echo', { text: 'x' }, 'real-id');
    expect(outcome).toMatchObject({ status: 'denied', code: 'PRE_EXECUTE_FAILED', by: 'mutator' });
    expect(t.host.events.list().every((e) => e.type !== 'tool/result' || e.data.name === 'echo')).toBe(true);
  });

  it('lets a tap that sets only a reason keep the decision', async () => {
    const { t } = await setup();
    t.host.hooks.preExecute.tap('annotator', () => ({ reason: 'looked fine' }));
    expect(await t.call('echo', { text: 'x' })).toMatchObject({ status: 'ok' });
  });

  it('untaps with the returned function', async () => {
    const { t } = await setup();
    const untap = t.host.hooks.preExecute.tap('denier', () => ({ decision: 'deny' }));
    untap();
    expect(await t.call('echo', { text: 'x' })).toMatchObject({ status: 'ok' });
  });
});
