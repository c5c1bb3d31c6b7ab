import { describe, expect, it } from 'vitest';
import { echoTool, sleepTool } from './__fixtures__/tools.js';
import { type ContextPart, defineTool, type Host, type StepResult, z } from './index.js';
import { createTestHost, logProblems } from './testing/index.js';

/** A tool that runs a nested step on behalf of its own call, as a subagent would. */
function delegateTool(host: Host, nested: (id: string) => { id: string; name: string; args: Record<string, unknown> }[]) {
  const results: StepResult[] = [];
  const tool = defineTool({
    name: 'delegate',
    description: 'Runs a nested step.',
    input: z.object({}),
    execute: async (_args, ctx) => {
      const { id, token } = ctx.call;
      const result = await host.runStep({ calls: nested(id) }, { parent: { id, token, signal: ctx.signal } });
      results.push(result);
      return result.results.map((r) => r.outcome.status);
    },
  });
  return { tool, results };
}

describe('host.runStep with a parent call (subagents)', () => {
  it('runs every call of the step on behalf of the parent: its token, and parent in each tool/call event', async () => {
    const t = await createTestHost();
    t.host.tools.register(echoTool());
    t.host.hooks.postExecute.tap('note', (state) => (state.call.name === 'echo' ? { addContext: `saw ${state.call.id}` } : undefined));
    const { tool, results } = delegateTool(t.host, (id) => [
      { id: `${id}:agent:1`, name: 'echo', args: { text: 'a' } },
      { id: `${id}:agent:2`, name: 'echo', args: { text: 'b' } },
    ]);
    t.host.tools.register(tool);
    expect(await t.call('delegate', {}, 'p1')).toMatchObject({ status: 'ok', output: ['ok', 'ok'] });
    const events = t.host.events.list();
    const outer = events.find((e) => e.type === 'tool/call' && e.call === 'p1');
    const nestedCalls = events.filter((e) => e.type === 'tool/call' && e.call !== 'p1');
    expect(nestedCalls.map((e) => [e.call, e.token, e.type === 'tool/call' && e.data.parent])).toEqual([
      ['p1:agent:1', outer?.token, 'p1'],
      ['p1:agent:2', outer?.token, 'p1'],
    ]);
    // The nested step keeps its context: it has a step message of its own to carry it.
    expect(results[0]?.context?.parts.map((p) => p.call)).toEqual(['p1:agent:1', 'p1:agent:2']);
    expect(logProblems(events)).toEqual([]);
  });

  it("follows the parent's signal: cancelling the outer step cancels the nested bodies", async () => {
    const order: string[] = [];
    const t = await createTestHost();
    t.host.tools.register(sleepTool(order));
    const { tool } = delegateTool(t.host, (id) => [{ id: `${id}:agent:1`, name: 'sleep', args: { ms: 60_000, label: 'inner' } }]);
    t.host.tools.register(tool);
    const controller = new AbortController();
    const step = t.host.runStep({ calls: [{ id: 'p2', name: 'delegate', args: {} }] }, { signal: controller.signal });
    while (!order.includes('start:inner')) await new Promise((resolve) => setTimeout(resolve, 1));
    controller.abort();
    const { results } = await step;
    expect(order).toContain('aborted:inner');
    // The delegate settled with its nested step's answer: the nested call was cancelled.
    expect(results[0]?.outcome).toMatchObject({ status: 'ok', output: ['error'] });
    const inner = t.host.events.list().find((e) => e.type === 'tool/result' && e.call === 'p2:agent:1');
    expect(inner?.data).toMatchObject({ outcome: { status: 'error', error: { code: 'ABORTED' } } });
  });

  it('tells a sub-call parent the context it dropped', async () => {
    const t = await createTestHost();
    t.host.tools.register(echoTool());
    t.host.hooks.postExecute.tap('note', () => ({ addContext: 'remember this' }));
    const dropped: ContextPart[][] = [];
    const outcome = await t.host.tools.execute(
      { id: 'sub-1', name: 'echo', args: { text: 'x' } },
      { id: 'outer', token: 'tok', onDroppedContext: (parts) => dropped.push([...parts]) },
    );
    expect(outcome.status).toBe('ok');
    expect(dropped).toEqual([[{ call: 'sub-1', by: 'note', text: 'remember this' }]]);
  });
});
