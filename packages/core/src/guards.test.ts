import { describe, expect, it } from 'vitest';
import { codeOf } from './__fixtures__/errors.js';
import { echoTool } from './__fixtures__/tools.js';
import type { GuardInput } from './index.js';
import { createTestHost, scriptedApproval } from './testing/index.js';

async function setup() {
  const runs: string[] = [];
  const approval = scriptedApproval('allowed-once');
  const t = await createTestHost({ defaultDecision: 'ask', approval: approval.provider, tapTimeoutMs: 50 });
  t.host.tools.register(echoTool(runs));
  return { t, runs, approval };
}

describe('guards (stage 6)', () => {
  it('denies a call the user approved: a guard deny is final', async () => {
    const { t, runs, approval } = await setup();
    t.host.guards.register({
      id: 'no-secrets',
      check: (input) => (String(input.args.text).includes('secret') ? { deny: 'no secrets' } : 'abstain'),
    });
    const outcome = await t.call('echo', { text: 'my secret' });
    expect(approval.requests).toHaveLength(1);
    expect(outcome).toMatchObject({ status: 'denied', stage: 'guard', by: 'no-secrets', code: 'GUARD_DENIED', reason: 'no secrets' });
    expect(runs).toEqual([]);
  });

  it('sees the final call and args, frozen, and whether approval or a tap allowed it', async () => {
    const { t } = await setup();
    const inputs: GuardInput[] = [];
    t.host.hooks.preExecute.tap('rewrite', () => ({ args: { text: 'final' } }));
    t.host.guards.register({
      id: 'spy',
      check: (input) => {
        inputs.push(input);
        return 'abstain';
      },
    });
    await t.call('echo', { text: 'first' }, 'g1');
    expect(inputs[0]).toMatchObject({ call: { id: 'g1', name: 'echo' }, args: { text: 'final' }, allowedBy: 'approval' });
    expect(Object.isFrozen(inputs[0]?.args)).toBe(true);
    expect(Object.isFrozen(inputs[0]?.call)).toBe(true);
  });

  it.each([
    [
      'throws',
      () => {
        throw new Error('guard bug');
      },
      'guard bug',
    ],
    ['rejects', () => Promise.reject(new Error('async guard bug')), 'async guard bug'],
    ['never answers', () => new Promise<'abstain'>(() => undefined), 'did not answer'],
    ['answers nonsense', () => 'allow' as never, 'unknown verdict'],
    ['answers nonsense later', async () => ({ deny: 5 }) as never, 'unknown verdict'],
  ])('denies when a guard %s', async (_label, check, message) => {
    const { t, runs } = await setup();
    t.host.guards.register({ id: 'flaky', check: check as unknown as () => 'abstain' });
    const outcome = await t.call('echo', { text: 'x' });
    expect(outcome).toMatchObject({ status: 'denied', stage: 'guard', code: 'GUARD_FAILED', by: 'flaky' });
    expect(outcome.status === 'denied' && outcome.reason).toContain(message);
    expect(runs).toEqual([]);
  });

  it('denies when any of several guards denies, whatever the order they answer in', async () => {
    const { t, runs } = await setup();
    t.host.guards.register({ id: 'slow-abstain', check: () => new Promise<'abstain'>((r) => setTimeout(() => r('abstain'), 5)) });
    t.host.guards.register({ id: 'async-deny', check: async () => ({ deny: 'late no' }) });
    t.host.guards.register({ id: 'sync-abstain', check: () => 'abstain' });
    expect(await t.call('echo', { text: 'x' })).toMatchObject({ status: 'denied', by: 'async-deny', reason: 'late no' });
    expect(runs).toEqual([]);
  });

  it('runs the call when every guard abstains', async () => {
    const { t, runs } = await setup();
    t.host.guards.register({ id: 'a', check: () => 'abstain' });
    t.host.guards.register({ id: 'b', check: async () => 'abstain' as const });
    expect(await t.call('echo', { text: 'x' }, 'ok1')).toMatchObject({ status: 'ok' });
    expect(runs).toEqual(['ok1:x']);
  });

  it('refuses a second guard with the same id and a malformed guard', async () => {
    const { t } = await setup();
    t.host.guards.register({ id: 'only', check: () => 'abstain' });
    expect(codeOf(() => t.host.guards.register({ id: 'only', check: () => 'abstain' }))).toBe('DUPLICATE_GUARD');
    expect(codeOf(() => t.host.guards.register({ id: '', check: () => 'abstain' }))).toBe('INVALID_GUARD');
    expect(codeOf(() => t.host.guards.register({ id: 'x' } as never))).toBe('INVALID_GUARD');
  });

  it('removes a guard only through its handle, and offers no other way', async () => {
    const { t, runs } = await setup();
    const handle = t.host.guards.register({ id: 'blocker', check: () => ({ deny: 'blocked' }) });
    expect(Object.keys(t.host.guards).sort()).toEqual(['ids', 'register']);
    expect(Object.isFrozen(t.host.guards)).toBe(true);
    expect(await t.call('echo', { text: 'x' })).toMatchObject({ status: 'denied' });
    expect(t.host.guards.ids()).toEqual(['blocker']);
    handle.remove();
    handle.remove();
    expect(t.host.guards.ids()).toEqual([]);
    expect(await t.call('echo', { text: 'x' }, 'after')).toMatchObject({ status: 'ok' });
    expect(runs).toEqual(['after:x']);
  });
});
