import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHost } from '@deepseek-ai/dsh-core';
import { RunState } from '@openai/agents-core';
import { describe, expect, it } from 'vitest';
import { openaiAgents } from './bridge.js';
import { type DecisionRecord, type DecisionStore, fileDecisionStore, memoryDecisionStore } from './decision-store.js';
import { AgentsErrorCode } from './errors.js';
import { tempDir } from './fixtures/hosts.js';
import { toolOutputs } from './fixtures/scripted-model.js';
import { agentWith, oneCallAndResultEach, setup } from './fixtures/setup.js';

const pending: DecisionRecord = { state: 'pending', session: 's', callId: 'c/1', tool: 'bash', args: '{"command":"ls"}', reason: 'asked' };
const count = { id: 'call_count', name: 'bash', args: { command: 'echo ran >> counter.txt' } };

describe('decision stores', () => {
  it('keeps records in files across store instances, keys with any characters included', async () => {
    const dir = join(tempDir(), 'nested', 'decisions');
    await fileDecisionStore(dir).set('s:c/1', pending);
    expect(await fileDecisionStore(dir).get('s:c/1')).toEqual(pending);
    expect(await fileDecisionStore(dir).get('s:other')).toBeUndefined();
    const memory = memoryDecisionStore();
    await memory.set('k', pending);
    expect(await memory.get('k')).toEqual(pending);
  });

  it('refuses a file that is not JSON or not a decision record with AGENTS_STORE_FAILED', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, `${encodeURIComponent('s:torn')}.json`), '{"state":"pen');
    writeFileSync(join(dir, `${encodeURIComponent('s:odd')}.json`), JSON.stringify({ ...pending, state: 'maybe' }));
    const store = fileDecisionStore(dir);
    await expect(store.get('s:torn')).rejects.toMatchObject({
      code: AgentsErrorCode.STORE_FAILED,
      message: expect.stringContaining('not JSON'),
    });
    await expect(store.get('s:odd')).rejects.toMatchObject({
      code: AgentsErrorCode.STORE_FAILED,
      message: expect.stringContaining('state'),
    });
    expect(() => fileDecisionStore('')).toThrow(expect.objectContaining({ code: 'AGENTS_INVALID_OPTIONS' }));
  });

  it('fails a write into a directory it cannot create with AGENTS_STORE_FAILED', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'file'), 'x');
    await expect(fileDecisionStore(join(dir, 'file', 'sub')).set('k', pending)).rejects.toMatchObject({
      code: AgentsErrorCode.STORE_FAILED,
    });
  });

  it('denies the call (fail closed) when the store cannot keep the pending decision, and does not interrupt', async () => {
    const broken: DecisionStore = {
      get: () => undefined,
      set: () => {
        throw new Error('disk full');
      },
    };
    const s = await setup({ store: broken, rules: { ask: ['Bash(echo:*)'] } });
    const { agent, model, runner } = agentWith(s.tools, [{ calls: [count] }, { text: 'ok' }]);
    const result = await runner.run(agent, 'count');
    expect(result.interruptions).toEqual([]);
    expect(toolOutputs(model.requests[1])[0]?.[1]).toMatch(/^Denied \(APPROVAL_FAILED\)/);
    await oneCallAndResultEach(s, model.calls);
  });
});

describe('what an approval covers', () => {
  it('does not let an approval cover arguments that a restored host rewrites differently', async () => {
    const dir = tempDir();
    const storeDir = tempDir();
    const first = await setup({ dir, store: fileDecisionStore(storeDir), session: 'same', rules: { ask: ['Bash(echo:*)'] } });
    const a = agentWith(first.tools, [{ calls: [count] }]);
    const text = (await a.runner.run(a.agent, 'count')).state.toString();

    const later = await setup({ dir, store: fileDecisionStore(storeDir), session: 'same', rules: { ask: ['Bash(echo:*)'] } });
    later.host.hooks.preExecute.tap('rewrite', (state) => ({ args: { ...state.args, command: 'echo other >> counter.txt' } }));
    const b = agentWith(later.tools, [{ text: 'ok' }]);
    const state = await RunState.fromString(b.agent, text);
    const [item] = state.getInterruptions();
    if (item === undefined) throw new Error('no interruption');
    state.approve(item);
    await b.runner.run(b.agent, state);
    expect(toolOutputs(b.model.requests[0])[0]?.[1]).toMatch(/^Denied \(APPROVAL_CANCELLED\): the arguments differ/);
    await oneCallAndResultEach(later, ['call_count']);
  });

  it('asks the fallback provider for calls no SDK run made, and denies them without one', async () => {
    const withFallback = openaiAgents({ fallbackApproval: () => 'allowed-once' });
    const host = createHost({ approval: withFallback.approval });
    const { defineTool, z } = await import('@deepseek-ai/dsh-core');
    host.tools.register(defineTool({ name: 'noop', description: 'Does nothing.', input: z.object({}), execute: () => 'done' }));
    const allowed = await host.runStep({ calls: [{ id: 'direct', name: 'noop', args: {} }] });
    expect(allowed.results[0]?.outcome).toMatchObject({ status: 'ok', output: 'done' });

    const bare = openaiAgents();
    const other = createHost({ approval: bare.approval });
    other.tools.register(defineTool({ name: 'noop', description: 'Does nothing.', input: z.object({}), execute: () => 'done' }));
    const denied = await other.runStep({ calls: [{ id: 'direct', name: 'noop', args: {} }] });
    expect(denied.results[0]?.outcome).toMatchObject({ status: 'denied', code: 'APPROVAL_UNAVAILABLE' });
  });
});
