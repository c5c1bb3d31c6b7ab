import { describe, expect, it } from 'vitest';
import { echoTool } from './__fixtures__/tools.js';
import { requireApproval } from './index.js';
import { createTestHost, scriptedApproval } from './testing/index.js';

async function setup(answer: 'allowed-once' | 'rejected' = 'allowed-once') {
  const runs: string[] = [];
  const approval = scriptedApproval(answer);
  const t = await createTestHost({ defaultDecision: 'allow', approval: approval.provider });
  t.host.tools.register(echoTool(runs));
  const remove = requireApproval(t.host, {
    name: 'own',
    wants: (state) => (String(state.args.text).startsWith('ask') ? Promise.resolve(true) : undefined),
  });
  return { t, runs, approval, remove };
}

describe('requireApproval', () => {
  it('puts the calls it wants to the person though the default and other taps allow them, and leaves the rest alone', async () => {
    const { t, runs, approval } = await setup();
    t.host.hooks.preExecute.tap('policy', () => ({ decision: 'allow' }));
    expect((await t.call('echo', { text: 'ask me' })).status).toBe('ok');
    expect((await t.call('echo', { text: 'plain' })).status).toBe('ok');
    expect(approval.requests.map((r) => [r.args, r.reason])).toEqual([[{ text: 'ask me' }, "echo's own approval is required"]]);
    expect(runs.map((r) => r.replace(/^[^:]*:/, ''))).toEqual(['ask me', 'plain']);
  });

  it('denies a wanted call that a tap allowed after it, at the same last stage, without asking', async () => {
    const { t, runs, approval } = await setup();
    t.host.hooks.preExecute.tap({ name: 'late', stage: Number.MAX_VALUE }, () => ({ decision: 'allow' }));
    const outcome = await t.call('echo', { text: 'ask me' });
    expect(outcome).toMatchObject({ status: 'denied', stage: 'guard', by: 'own' });
    expect(outcome.status === 'denied' && outcome.reason).toContain('allowed the call without asking');
    expect(approval.requests).toEqual([]);
    expect(runs).toEqual([]);
  });

  it('keeps a deny, honours the person saying no, and is gone once removed', async () => {
    const { t, runs, approval, remove } = await setup('rejected');
    expect((await t.call('echo', { text: 'ask me' })).status).toBe('denied');
    t.host.hooks.preExecute.tap('no', (state) => (state.args.text === 'ask denied' ? { decision: 'deny' } : undefined));
    expect(await t.call('echo', { text: 'ask denied' })).toMatchObject({ status: 'denied', stage: 'pre-execute' });
    expect(approval.requests).toHaveLength(1);
    remove();
    expect((await t.call('echo', { text: 'ask me' })).status).toBe('ok');
    expect(runs.map((r) => r.replace(/^[^:]*:/, ''))).toEqual(['ask me']);
  });
});
