import { describe, expect, it } from 'vitest';
import { echoTool } from './__fixtures__/tools.js';
import type { AnySessionEvent, ApprovalProvider } from './index.js';
import { createTestHost, logProblems, scriptedApproval } from './testing/index.js';

async function setup(approval?: ApprovalProvider, approvalTimeoutMs = 1000) {
  const runs: string[] = [];
  const t = await createTestHost({ defaultDecision: 'ask', approvalTimeoutMs, ...(approval ? { approval } : {}) });
  t.host.tools.register(echoTool(runs));
  return { t, runs };
}

/** The call's events in order; the step's own `step/start` and `step/end` around them are tested with the step. */
const story = (events: readonly AnySessionEvent[]) => events.filter((e) => e.call !== undefined).map((e) => e.type);
const dataOf = (events: readonly AnySessionEvent[], type: string) => events.find((e) => e.type === type)?.data;

describe('approval events in the session log (issue 16 item 1)', () => {
  it('logs request then answer between tool/call and tool/result, even when a guard then denies', async () => {
    const { t, runs } = await setup(scriptedApproval('allowed-once').provider);
    t.host.hooks.preExecute.tap('rewriter', () => ({ args: { text: 'effective' }, decision: 'ask', reason: 'looks risky' }));
    t.host.guards.register({ id: 'overruler', check: () => ({ deny: 'not after all' }) });
    const outcome = await t.call('echo', { text: 'sent' }, 'c1');
    expect(outcome).toMatchObject({ status: 'denied', code: 'GUARD_DENIED' });
    expect(runs).toEqual([]);
    const events = t.host.events.list();
    expect(story(events)).toEqual(['tool/call', 'approval/request', 'approval/answer', 'tool/result']);
    expect(events[2]).toMatchObject({ type: 'approval/request', call: 'c1', token: events[1]?.token });
    expect(dataOf(events, 'approval/request')).toEqual({
      name: 'echo',
      args: { text: 'effective' },
      reason: 'looks risky',
      by: 'rewriter',
    });
    const answer = dataOf(events, 'approval/answer');
    expect(answer).toMatchObject({ answer: 'allowed-once', source: 'provider' });
    expect(answer).not.toHaveProperty('grant');
    expect(logProblems(events)).toEqual([]);
  });

  it('records the provider message, and a grant the provider says its answer created', async () => {
    const { t } = await setup(scriptedApproval({ answer: 'allowed-once', message: 'ok for now', grant: 'grant-7' }).provider);
    await t.call('echo', { text: 'x' });
    expect(dataOf(t.host.events.list(), 'approval/answer')).toMatchObject({
      answer: 'allowed-once',
      source: 'provider',
      message: 'ok for now',
      grant: 'grant-7',
    });
    const { t: t2 } = await setup(scriptedApproval({ answer: 'rejected', message: 'use the staging box' }).provider);
    await t2.call('echo', { text: 'x' });
    expect(dataOf(t2.host.events.list(), 'approval/answer')).toMatchObject({ answer: 'rejected', message: 'use the staging box' });
    expect(dataOf(t2.host.events.list(), 'approval/request')).not.toHaveProperty('by');
  });

  it.each([
    ['no provider', undefined, { answer: 'unavailable', source: 'none' }],
    [
      'a provider that throws',
      () => {
        throw new Error('prompt crashed');
      },
      { answer: 'failed', source: 'provider' },
    ],
    ['a nonsense answer', () => 'sure' as never, { answer: 'failed', source: 'provider' }],
    ['a provider that never answers', () => new Promise<never>(() => undefined), { answer: 'unavailable', source: 'timeout' }],
  ])('logs the answer for %s, and the call is denied', async (_label, provider, expected) => {
    const { t, runs } = await setup(provider as ApprovalProvider | undefined, 30);
    expect(await t.call('echo', { text: 'x' })).toMatchObject({ status: 'denied' });
    expect(runs).toEqual([]);
    const events = t.host.events.list();
    expect(story(events)).toEqual(['tool/call', 'approval/request', 'approval/answer', 'tool/result']);
    expect(dataOf(events, 'approval/answer')).toMatchObject(expected);
    expect(logProblems(events)).toEqual([]);
  });

  it('logs a step cancelled during the approval as answered by the step', async () => {
    const controller = new AbortController();
    const { t } = await setup(() => {
      controller.abort();
      return new Promise<never>(() => undefined);
    });
    const { results } = await t.host.runStep({ calls: [{ id: 'c', name: 'echo', args: { text: 'x' } }] }, { signal: controller.signal });
    expect(results[0]?.outcome).toMatchObject({ error: { code: 'ABORTED_BEFORE_DISPATCH' } });
    expect(dataOf(t.host.events.list(), 'approval/answer')).toMatchObject({ answer: 'cancelled', source: 'step' });
  });

  it('logs no approval for a call that was not asked', async () => {
    const { t } = await setup(scriptedApproval('allowed-once').provider);
    t.host.hooks.preExecute.tap('allower', () => ({ decision: 'allow' }));
    await t.call('echo', { text: 'x' });
    expect(story(t.host.events.list())).toEqual(['tool/call', 'tool/result']);
  });

  it('lets a tap report that a remembered grant answered the approval: logged with source remembered, provider not asked', async () => {
    const script = scriptedApproval('rejected');
    const { t, runs } = await setup(script.provider);
    t.host.hooks.preExecute.tap('permissions', () => ({ decision: 'allow', reason: 'allowed by grant g1', remembered: { grant: 'g1' } }));
    expect(await t.call('echo', { text: 'x' }, 'r1')).toMatchObject({ status: 'ok' });
    expect(script.requests).toHaveLength(0);
    expect(runs).toEqual(['r1:x']);
    const events = t.host.events.list();
    expect(story(events)).toEqual(['tool/call', 'approval/request', 'approval/answer', 'tool/result']);
    expect(dataOf(events, 'approval/request')).toMatchObject({ name: 'echo', reason: 'allowed by grant g1', by: 'permissions' });
    expect(dataOf(events, 'approval/answer')).toMatchObject({
      answer: 'allowed',
      source: 'remembered',
      grant: 'g1',
      elapsedMs: expect.any(Number),
    });
  });

  it('forgets a remembered grant when a later tap changes the decision, and refuses a malformed one', async () => {
    const script = scriptedApproval('allowed-once');
    const { t } = await setup(script.provider);
    t.host.hooks.preExecute.tap('permissions', () => ({ decision: 'allow', remembered: { grant: 'g1' } }));
    t.host.hooks.preExecute.tap('stricter', () => ({ decision: 'ask', reason: 'ask anyway' }));
    await t.call('echo', { text: 'x' });
    expect(script.requests).toHaveLength(1);
    const answers = t.host.events.list().filter((e) => e.type === 'approval/answer');
    expect(answers.map((e) => e.data)).toEqual([expect.objectContaining({ answer: 'allowed-once', source: 'provider' })]);

    const { t: t2, runs } = await setup(script.provider);
    t2.host.hooks.preExecute.tap('broken', () => ({ decision: 'allow', remembered: { grant: 5 } as never }));
    expect(await t2.call('echo', { text: 'x' })).toMatchObject({ status: 'denied', code: 'PRE_EXECUTE_FAILED' });
    expect(runs).toEqual([]);
  });
});
