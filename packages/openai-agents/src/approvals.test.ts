import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { logProblems } from '@deepseek-ai/dsh-core/testing';
import { RunState } from '@openai/agents-core';
import { describe, expect, it } from 'vitest';
import { fileDecisionStore } from './decision-store.js';
import { tempDir } from './fixtures/hosts.js';
import { toolOutputs } from './fixtures/scripted-model.js';
import { agentWith, eventsOf, oneCallAndResultEach, setup } from './fixtures/setup.js';

const touch = { id: 'call_touch', name: 'bash', args: { command: 'touch approved.txt' } };
const count = { id: 'call_count', name: 'bash', args: { command: 'echo ran >> counter.txt' } };

function hookRuns(log: string): number {
  return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').length : 0;
}

describe("dsh's ask as the run's interruption", () => {
  it('interrupts on ask, and runs the call once the person approves it', async () => {
    const s = await setup({ rules: { ask: ['Bash(touch:*)'] } });
    const { agent, model, runner } = agentWith(s.tools, [{ calls: [touch] }, { text: 'done' }]);
    const first = await runner.run(agent, 'make the file');
    expect(first.interruptions).toHaveLength(1);
    const [item] = first.interruptions;
    if (item === undefined) throw new Error('no interruption');
    expect(item.name).toBe('bash');
    expect(await s.bridge.describe(item)).toMatchObject({ state: 'pending', callId: 'call_touch', tool: 'bash' });
    expect(existsSync(join(s.dir, 'approved.txt'))).toBe(false);
    expect(eventsOf(s.host, 'approval/request')).toHaveLength(1);
    expect(eventsOf(s.host, 'tool/result')).toHaveLength(0);

    first.state.approve(item);
    const second = await runner.run(agent, first.state);
    expect(second.finalOutput).toBe('done');
    expect(existsSync(join(s.dir, 'approved.txt'))).toBe(true);
    expect(eventsOf(s.host, 'approval/answer').map(([, data]) => data)).toMatchObject([{ answer: 'allowed-once', source: 'provider' }]);
    expect(eventsOf(s.host, 'tool/result')).toHaveLength(1);
    expect(eventsOf(s.host, 'tool/result')[0]?.[1]).toMatchObject({ outcome: { status: 'ok' } });
    expect(hookRuns(s.hookLog)).toBe(1);
    expect(toolOutputs(model.requests[1]).map(([id]) => id)).toEqual(['call_touch']);
    expect(logProblems(s.host.events.list())).toEqual([]);
    await oneCallAndResultEach(s, model.calls);
  });

  it("turns the person's rejection into dsh's denial, with their message for the model", async () => {
    const s = await setup({ rules: { ask: ['Bash(touch:*)'] } });
    const { agent, model, runner } = agentWith(s.tools, [{ calls: [touch] }, { text: 'ok' }]);
    const first = await runner.run(agent, 'make the file');
    const [item] = first.interruptions;
    if (item === undefined) throw new Error('no interruption');
    first.state.reject(item, { message: 'not in this folder' });
    await s.bridge.settle(first.state);
    const results = eventsOf(s.host, 'tool/result');
    expect(results).toHaveLength(1);
    expect(results[0]?.[1]).toMatchObject({
      outcome: { status: 'denied', code: 'APPROVAL_REJECTED', reason: expect.stringContaining('not in this folder') },
    });
    await runner.run(agent, first.state);
    expect(existsSync(join(s.dir, 'approved.txt'))).toBe(false);
    expect(toolOutputs(model.requests[1])).toEqual([['call_touch', 'not in this folder']]);
    expect(logProblems(s.host.events.list())).toEqual([]);
    await oneCallAndResultEach(s, model.calls);
  });

  it('settle() returns at once for approved calls, which run when the run resumes', async () => {
    const s = await setup({ rules: { ask: ['Bash(touch:*)'] } });
    const { agent, model, runner } = agentWith(s.tools, [{ calls: [touch] }, { text: 'done' }]);
    const first = await runner.run(agent, 'make the file');
    const [item] = first.interruptions;
    if (item === undefined) throw new Error('no interruption');
    first.state.approve(item);
    await s.bridge.settle(first.state);
    expect(eventsOf(s.host, 'tool/result')).toHaveLength(0);
    expect((await runner.run(agent, first.state)).finalOutput).toBe('done');
    expect(existsSync(join(s.dir, 'approved.txt'))).toBe(true);
    await oneCallAndResultEach(s, model.calls);
  });

  it('settles a rejection at the next dsh tool call of the run without settle()', async () => {
    const s = await setup({ rules: { ask: ['Bash(touch:*)'], allow: ['Read'] } });
    const { agent, model, runner } = agentWith(s.tools, [
      { calls: [touch] },
      { calls: [{ id: 'call_next', name: 'read', args: { file_path: 'nothing.txt' } }] },
      { text: 'ok' },
    ]);
    const first = await runner.run(agent, 'go');
    const [item] = first.interruptions;
    if (item === undefined) throw new Error('no interruption');
    const rejected = new Promise<void>((resolve) => {
      s.host.events.subscribe((event) => {
        if (event.type === 'tool/result' && event.call === 'call_touch') resolve();
      });
    });
    first.state.reject(item);
    await runner.run(agent, first.state);
    // No settle(): the read's needsApproval in the resumed run handed the rejection to dsh.
    await rejected;
    const results = eventsOf(s.host, 'tool/result');
    expect(results.map(([call]) => call).sort()).toEqual(['call_next', 'call_touch']);
    expect(results.find(([call]) => call === 'call_touch')?.[1]).toMatchObject({
      outcome: { status: 'denied', code: 'APPROVAL_REJECTED' },
    });
    await oneCallAndResultEach(s, model.calls);
  });

  it('runs the allowed calls of a turn while an earlier one waits, and answers each call once', async () => {
    const s = await setup({ rules: { ask: ['Bash(touch:*)'], allow: ['Read'] } });
    writeFileSync(join(s.dir, 'a.txt'), 'A');
    const read = { id: 'call_read', name: 'read', args: { file_path: 'a.txt' } };
    const { agent, model, runner } = agentWith(s.tools, [{ calls: [touch, read] }, { text: 'ok' }]);
    const first = await runner.run(agent, 'go');
    expect(first.interruptions.map((i) => (i.rawItem as { callId: string }).callId)).toEqual(['call_touch']);
    // The allowed call has its result already; only the asked one waits for the person.
    expect(eventsOf(s.host, 'tool/result').map(([call]) => call)).toEqual(['call_read']);
    const [item] = first.interruptions;
    if (item === undefined) throw new Error('no interruption');
    first.state.approve(item);
    await runner.run(agent, first.state);
    // The SDK keeps the output of a call that ran before the interruption ahead of the approved one's.
    expect(toolOutputs(model.requests[1]).map(([id]) => id)).toEqual(['call_read', 'call_touch']);
    expect(existsSync(join(s.dir, 'approved.txt'))).toBe(true);
    expect(eventsOf(s.host, 'tool/result').map(([call]) => call)).toEqual(['call_read', 'call_touch']);
    expect(logProblems(s.host.events.list())).toEqual([]);
    await oneCallAndResultEach(s, model.calls);
  });
});

describe('an approval that outlives the host deadline', () => {
  it('is denied with APPROVAL_TIMEOUT, and a late approve does not run the call', async () => {
    const s = await setup({ rules: { ask: ['Bash(touch:*)'] }, host: { approvalTimeoutMs: 20 } });
    const timedOut = new Promise<void>((resolve) => {
      s.host.events.subscribe((event) => {
        if (event.type === 'tool/result') resolve();
      });
    });
    const { agent, model, runner } = agentWith(s.tools, [{ calls: [touch] }, { text: 'ok' }]);
    const first = await runner.run(agent, 'make the file');
    const [item] = first.interruptions;
    if (item === undefined) throw new Error('no interruption');
    await timedOut;
    first.state.approve(item);
    await runner.run(agent, first.state);
    expect(existsSync(join(s.dir, 'approved.txt'))).toBe(false);
    expect(toolOutputs(model.requests[1])[0]?.[1]).toMatch(/^Denied \(APPROVAL_TIMEOUT\)/);
    await oneCallAndResultEach(s, model.calls);
  });
});

describe('a run serialised with toString() and restored with fromString()', () => {
  async function interrupted(dir: string, storeDir: string) {
    const s = await setup({ dir, store: fileDecisionStore(storeDir), session: 'session-1', rules: { ask: ['Bash(echo:*)'] } });
    const { agent, runner } = agentWith(s.tools, [{ calls: [count] }, { text: 'ok' }]);
    const first = await runner.run(agent, 'count');
    expect(first.interruptions).toHaveLength(1);
    return { s, text: first.state.toString() };
  }

  /** A fresh host and bridge on the same project, store and session: what a new process builds. */
  async function restored(dir: string, storeDir: string, text: string) {
    const s = await setup({ dir, store: fileDecisionStore(storeDir), session: 'session-1', rules: { ask: ['Bash(echo:*)'] } });
    const { agent, model, runner } = agentWith(s.tools, [{ text: 'ok' }]);
    const state = await RunState.fromString(agent, text);
    return { s, agent, model, runner, state };
  }

  it('resumes the approved call once in a fresh host, and a second restore does not run it again', async () => {
    const dir = tempDir();
    const storeDir = join(tempDir(), 'decisions');
    const { text } = await interrupted(dir, storeDir);
    expect(existsSync(join(dir, 'counter.txt'))).toBe(false);

    const r = await restored(dir, storeDir, text);
    const [item] = r.state.getInterruptions();
    if (item === undefined) throw new Error('no interruption after restore');
    expect(await r.s.bridge.describe(item)).toMatchObject({
      state: 'pending',
      args: JSON.stringify({ command: 'echo ran >> counter.txt' }),
    });
    r.state.approve(item);
    const done = await r.runner.run(r.agent, r.state);
    expect(done.finalOutput).toBe('ok');
    expect(readFileSync(join(dir, 'counter.txt'), 'utf8')).toBe('ran\n');
    expect(eventsOf(r.s.host, 'approval/answer').map(([, data]) => data)).toMatchObject([{ answer: 'allowed-once' }]);
    // The interrupted process logged the call; the fresh one logs it again with its one result.
    await oneCallAndResultEach(r.s, ['call_count']);
    const [[, seen] = ['', '']] = toolOutputs(r.model.requests[0]);

    const again = await restored(dir, storeDir, text);
    const [sameItem] = again.state.getInterruptions();
    if (sameItem === undefined) throw new Error('no interruption after the second restore');
    again.state.approve(sameItem);
    await again.runner.run(again.agent, again.state);
    expect(readFileSync(join(dir, 'counter.txt'), 'utf8')).toBe('ran\n');
    expect(eventsOf(again.s.host, 'tool/call')).toHaveLength(0);
    expect(toolOutputs(again.model.requests[0])).toEqual([['call_count', seen]]);
  });

  it('gives a rejection made after the restore its denied result in the fresh host', async () => {
    const dir = tempDir();
    const storeDir = join(tempDir(), 'decisions');
    const { text } = await interrupted(dir, storeDir);
    const r = await restored(dir, storeDir, text);
    const [item] = r.state.getInterruptions();
    if (item === undefined) throw new Error('no interruption after restore');
    r.state.reject(item, { message: 'no counting today' });
    await r.s.bridge.settle(r.state);
    expect(eventsOf(r.s.host, 'tool/result')[0]?.[1]).toMatchObject({ outcome: { status: 'denied', code: 'APPROVAL_REJECTED' } });
    await r.runner.run(r.agent, r.state);
    expect(existsSync(join(dir, 'counter.txt'))).toBe(false);
    expect(toolOutputs(r.model.requests[0])).toEqual([['call_count', 'no counting today']]);
    await oneCallAndResultEach(r.s, ['call_count']);
  });

  it('interrupts again on the same call when the restored run is resumed unanswered', async () => {
    const dir = tempDir();
    const storeDir = join(tempDir(), 'decisions');
    const { text } = await interrupted(dir, storeDir);
    const r = await restored(dir, storeDir, text);
    const again = await r.runner.run(r.agent, r.state);
    expect(again.interruptions.map((i) => (i.rawItem as { callId: string }).callId)).toEqual(['call_count']);
    expect(existsSync(join(dir, 'counter.txt'))).toBe(false);
    expect(eventsOf(r.s.host, 'tool/call')).toHaveLength(0);
  });
});
