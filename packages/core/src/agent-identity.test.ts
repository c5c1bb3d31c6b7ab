import { describe, expect, it } from 'vitest';
import { echoTool } from './__fixtures__/tools.js';
import { type CallIdentity, defineTool, type Host, z } from './index.js';
import { createTestHost, logProblems, scriptedApproval } from './testing/index.js';

const reviewer = { id: 'agent-1', type: 'reviewer' };

/** A tool that runs a nested step as a subagent, and one sub-call through its own ctx (as run_code does). */
function subagentTool(host: Host, seen: CallIdentity[]) {
  return defineTool({
    name: 'task',
    description: 'Runs a nested step as a subagent.',
    input: z.object({}),
    execute: async (_args, ctx) => {
      const { id, token } = ctx.call;
      await host.runStep({ calls: [{ id: `${id}:agent:0`, name: 'relay', args: {} }] }, { parent: { id, token, agent: reviewer } });
      return seen.map((c) => c.id);
    },
  });
}

/** A tool whose body records its identity and makes one sub-call through `ctx.tools.execute`. */
function relayTool(seen: CallIdentity[]) {
  return defineTool({
    name: 'relay',
    description: 'Records its identity and calls echo.',
    input: z.object({}),
    execute: async (_args, ctx) => {
      seen.push(ctx.call);
      const outcome = await ctx.tools.execute({ id: `${ctx.call.id}:code:0`, name: 'echo', args: { text: 'x' } });
      return outcome.status;
    },
  });
}

describe('the agent of a nested call (ParentCall.agent)', () => {
  it('is on every nested call identity, frozen, recorded in tool/call, and inherited by sub-calls', async () => {
    const seen: CallIdentity[] = [];
    const t = await createTestHost();
    t.host.tools.register(echoTool());
    t.host.tools.register(relayTool(seen));
    t.host.tools.register(subagentTool(t.host, seen));
    const echoed: CallIdentity[] = [];
    t.host.hooks.preExecute.tap('watch', (state) => {
      if (state.call.name === 'echo') echoed.push(state.call);
      return undefined;
    });
    expect(await t.call('task', {}, 'p1')).toMatchObject({ status: 'ok' });
    const relay = seen[0];
    expect(relay?.agent).toEqual(reviewer);
    expect(Object.isFrozen(relay?.agent)).toBe(true);
    // Copied on entry: the object the caller passed is not the one calls carry.
    expect(relay?.agent).not.toBe(reviewer);
    expect(echoed[0]?.agent).toEqual(reviewer);
    const calls = t.host.events.list().filter((e) => e.type === 'tool/call');
    const agents = calls.map((e) => [e.call, e.type === 'tool/call' ? e.data.agent : undefined]);
    expect(agents).toEqual([
      ['p1', undefined],
      ['p1:agent:0', reviewer],
      ['p1:agent:0:code:0', reviewer],
    ]);
    expect(logProblems(t.host.events.list())).toEqual([]);
  });

  it('reaches the approval provider on the request, so a prompt can name the subagent', async () => {
    const approval = scriptedApproval('allowed-once');
    const seen: CallIdentity[] = [];
    const t = await createTestHost({ approval: approval.provider });
    t.host.tools.register(echoTool());
    t.host.tools.register(relayTool(seen));
    t.host.tools.register(subagentTool(t.host, seen));
    t.host.hooks.preExecute.tap('ask-nested', (state) => (state.call.agent === undefined ? undefined : { decision: 'ask' }));
    await t.call('task', {}, 'p2');
    expect(approval.requests.map((r) => [r.call.id, r.call.agent?.type])).toEqual([
      ['p2:agent:0', 'reviewer'],
      ['p2:agent:0:code:0', 'reviewer'],
    ]);
  });

  it('is absent for the main agent and for nested steps whose parent names no agent', async () => {
    const t = await createTestHost();
    t.host.tools.register(echoTool());
    const ids: (CallIdentity['agent'] | 'none')[] = [];
    t.host.hooks.preExecute.tap('watch', (state) => {
      ids.push('agent' in state.call ? state.call.agent : 'none');
      return undefined;
    });
    await t.call('echo', { text: 'a' }, 'm1');
    await t.host.runStep({ calls: [{ id: 'm1:agent:0', name: 'echo', args: { text: 'b' } }] }, { parent: { id: 'm1', token: 't' } });
    expect(ids).toEqual(['none', 'none']);
  });
});
