import { describe, expect, it } from 'vitest';
import { echoTool } from './__fixtures__/tools.js';
import type { ApprovalProvider } from './index.js';
import { createTestHost, scriptedApproval } from './testing/index.js';

async function setup(approval?: ApprovalProvider, approvalTimeoutMs = 1000) {
  const runs: string[] = [];
  const t = await createTestHost({ defaultDecision: 'ask', approvalTimeoutMs, ...(approval ? { approval } : {}) });
  t.host.tools.register(echoTool(runs));
  return { t, runs };
}

describe('approval (stage 5)', () => {
  it('runs the call when the provider answers allowed-once, and asks with the effective args and reason', async () => {
    const script = scriptedApproval('allowed-once');
    const { t, runs } = await setup(script.provider);
    t.host.hooks.preExecute.tap('rewriter', () => ({ args: { text: 'rewritten' }, decision: 'ask', reason: 'looks risky' }));
    const outcome = await t.call('echo', { text: 'orig' }, 'c1');
    expect(outcome).toMatchObject({ status: 'ok', output: { text: 'rewritten' } });
    expect(script.requests).toHaveLength(1);
    expect(script.requests[0]).toMatchObject({
      call: { id: 'c1', name: 'echo' },
      args: { text: 'rewritten' },
      reason: 'looks risky',
      tool: { name: 'echo' },
    });
    expect(runs).toEqual(['c1:rewritten']);
  });

  it('denies with APPROVAL_UNAVAILABLE when there is no provider', async () => {
    const { t, runs } = await setup();
    const outcome = await t.call('echo', { text: 'x' });
    expect(outcome).toMatchObject({ status: 'denied', stage: 'approval', code: 'APPROVAL_UNAVAILABLE' });
    expect(outcome.status === 'denied' && outcome.reason).toContain('no approval provider');
    expect(runs).toEqual([]);
  });

  it.each([
    ['rejected', 'APPROVAL_REJECTED', 'rejected'],
    ['cancelled', 'APPROVAL_CANCELLED', 'cancelled'],
    ['unavailable', 'APPROVAL_UNAVAILABLE', 'unavailable'],
  ] as const)('denies when the provider answers %s', async (answer, code, word) => {
    const { t, runs } = await setup(() => answer);
    const outcome = await t.call('echo', { text: 'x' });
    expect(outcome).toMatchObject({ status: 'denied', code });
    expect(outcome.status === 'denied' && outcome.reason).toContain(word);
    expect(runs).toEqual([]);
  });

  it("passes the user's message to the model", async () => {
    const { t } = await setup(async () => ({ answer: 'rejected', message: 'use git stash instead' }));
    expect(await t.call('echo', { text: 'x' })).toMatchObject({ status: 'denied', reason: 'use git stash instead' });
  });

  it('denies with APPROVAL_FAILED when the provider throws, rejects or answers nonsense', async () => {
    for (const provider of [
      () => {
        throw new Error('ui crashed');
      },
      () => Promise.reject(new Error('ui crashed')),
      () => 'yes please' as never,
      () => null as never,
    ]) {
      const { t, runs } = await setup(provider as ApprovalProvider);
      expect(await t.call('echo', { text: 'x' })).toMatchObject({ status: 'denied', code: 'APPROVAL_FAILED' });
      expect(runs).toEqual([]);
    }
  });

  it('denies with APPROVAL_TIMEOUT when the provider answers late, and aborts its signal', async () => {
    let signal: AbortSignal | undefined;
    const { t, runs } = await setup((request) => {
      signal = request.signal;
      return new Promise((resolve) => setTimeout(() => resolve('allowed-once'), 500));
    }, 30);
    const outcome = await t.call('echo', { text: 'x' });
    expect(outcome).toMatchObject({ status: 'denied', code: 'APPROVAL_TIMEOUT' });
    expect(signal?.aborted).toBe(true);
    expect(runs).toEqual([]);
  });

  it('asks once per call: an approval never covers another call', async () => {
    const answers = ['allowed-once', 'rejected'] as const;
    const script = scriptedApproval(() => answers[script.requests.length - 1] ?? 'rejected');
    const { t, runs } = await setup(script.provider);
    const { results } = await t.host.runStep({
      calls: [
        { id: 'a', name: 'echo', args: { text: 'same' } },
        { id: 'b', name: 'echo', args: { text: 'same' } },
      ],
    });
    expect(results.map((r) => r.outcome.status)).toEqual(['ok', 'denied']);
    expect(script.requests.map((r) => r.call.id)).toEqual(['a', 'b']);
    expect(runs).toEqual(['a:same']);
  });

  it('does not ask when a tap allowed the call', async () => {
    const script = scriptedApproval('rejected');
    const { t } = await setup(script.provider);
    t.host.hooks.preExecute.tap('allow', () => ({ decision: 'allow' }));
    expect(await t.call('echo', { text: 'x' })).toMatchObject({ status: 'ok' });
    expect(script.requests).toHaveLength(0);
  });

  it('ends a call waiting for approval with ABORTED_BEFORE_DISPATCH when the step is cancelled', async () => {
    const controller = new AbortController();
    const { t, runs } = await setup(() => {
      setTimeout(() => controller.abort(), 10);
      return new Promise(() => undefined);
    }, 5000);
    const { results } = await t.host.runStep({ calls: [{ id: 'a', name: 'echo', args: { text: 'x' } }] }, { signal: controller.signal });
    expect(results[0]?.outcome).toMatchObject({ status: 'error', error: { code: 'ABORTED_BEFORE_DISPATCH' } });
    expect(runs).toEqual([]);
  });
});
