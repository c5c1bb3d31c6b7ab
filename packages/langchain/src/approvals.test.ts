import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { logProblems } from '@deepseek-ai/dsh-core/testing';
import { Command } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { agentFor, eventsOf, hookPayloads, loggedOnDisk, onePerCall, setup, toolMessages } from './fixtures/setup.js';

const thread = (id: string) => ({ configurable: { thread_id: id } });
const ask = { rules: { ask: ['Bash(echo:*)'] } };
const echoCall = { id: 'call_echo', name: 'bash', args: { command: 'echo approved > out.txt' } };

describe('dsh approvals as LangGraph interrupts', () => {
  it('interrupts on ask, runs the hook once, and runs the body once approved', async () => {
    const s = await setup(ask);
    const { agent } = agentFor(s, [{ calls: [echoCall] }, { text: 'done' }]);
    const first = await agent.invoke({ messages: [{ role: 'user', content: 'echo' }] }, thread('a1'));
    const interrupts = first.__interrupt__ ?? [];
    expect(interrupts).toHaveLength(1);
    expect(interrupts[0]?.value).toMatchObject({
      actionRequests: [{ name: 'bash', args: { command: 'echo approved > out.txt' } }],
      reviewConfigs: [{ actionName: 'bash', allowedDecisions: ['approve', 'reject'] }],
      dsh: { callId: 'call_echo' },
    });
    expect(existsSync(join(s.dir, 'out.txt'))).toBe(false);
    expect(s.bridge.pending().map((p) => p.callId)).toEqual(['call_echo']);
    expect(eventsOf(s.host, 'tool/call')).toHaveLength(1);
    expect(eventsOf(s.host, 'tool/result')).toHaveLength(0);

    const second = await agent.invoke(new Command({ resume: { decisions: [{ type: 'approve' }] } }), thread('a1'));
    expect(second.__interrupt__ ?? []).toEqual([]);
    expect(readFileSync(join(s.dir, 'out.txt'), 'utf8')).toBe('approved\n');
    expect(toolMessages(second.messages).map(([id, , status]) => [id, status])).toEqual([['call_echo', 'success']]);
    // The node re-ran on resume, but the pre-execute hook and the tool/call event happened once.
    expect(hookPayloads(s)).toHaveLength(1);
    expect(eventsOf(s.host, 'tool/call')).toHaveLength(1);
    expect(eventsOf(s.host, 'tool/result')).toHaveLength(1);
    expect(s.bridge.pending()).toEqual([]);
    expect(logProblems(s.host.events.list())).toEqual([]);
    expect(await loggedOnDisk(s)).toEqual(onePerCall('call_echo'));
  });

  it("denies with the person's message when the resume rejects", async () => {
    const s = await setup(ask);
    const { agent } = agentFor(s, [{ calls: [echoCall] }, { text: 'done' }]);
    await agent.invoke({ messages: [{ role: 'user', content: 'echo' }] }, thread('a2'));
    const second = await agent.invoke(new Command({ resume: { decisions: [{ type: 'reject', message: 'not today' }] } }), thread('a2'));
    expect(existsSync(join(s.dir, 'out.txt'))).toBe(false);
    const [[, text, status] = ['', '', '']] = toolMessages(second.messages);
    expect(status).toBe('error');
    expect(text).toMatch(/^Denied \(.*\): .*not today/);
    expect(eventsOf(s.host, 'tool/result')).toHaveLength(1);
    expect(eventsOf(s.host, 'tool/result')[0]?.[1]).toMatchObject({ outcome: { status: 'denied', stage: 'approval' } });
    expect(hookPayloads(s)).toHaveLength(1);
    expect(await loggedOnDisk(s)).toEqual(onePerCall('call_echo'));
  });

  it('fails closed on a resume value that is not a decision, saying what was wrong', async () => {
    const s = await setup(ask);
    const { agent } = agentFor(s, [{ calls: [echoCall] }, { text: 'done' }]);
    await agent.invoke({ messages: [{ role: 'user', content: 'echo' }] }, thread('a3'));
    const second = await agent.invoke(new Command({ resume: { decisions: [{ type: 'edit', args: {} }] } }), thread('a3'));
    expect(existsSync(join(s.dir, 'out.txt'))).toBe(false);
    const [[, text] = ['', '']] = toolMessages(second.messages);
    expect(text).toContain('LANGCHAIN_INVALID_RESUME');
    expect(eventsOf(s.host, 'tool/result')).toHaveLength(1);
    expect(await loggedOnDisk(s)).toEqual(onePerCall('call_echo'));
  });

  it('gives a call abandoned at its interrupt its one result when cancelPending is called', async () => {
    const s = await setup(ask);
    const { agent } = agentFor(s, [{ calls: [echoCall] }, { text: 'done' }]);
    await agent.invoke({ messages: [{ role: 'user', content: 'echo' }] }, thread('a4'));
    expect(s.bridge.cancelPending()).toBe(1);
    await s.bridge.settled();
    expect(eventsOf(s.host, 'tool/result')[0]?.[1]).toMatchObject({ outcome: { status: 'denied', stage: 'approval' } });
    expect(existsSync(join(s.dir, 'out.txt'))).toBe(false);
    expect(s.bridge.pending()).toEqual([]);
    // Resuming afterwards gets the remembered denial, not a second run.
    const second = await agent.invoke(new Command({ resume: { decisions: [{ type: 'approve' }] } }), thread('a4'));
    expect(existsSync(join(s.dir, 'out.txt'))).toBe(false);
    expect(toolMessages(second.messages)[0]?.[1]).toContain('LANGCHAIN_APPROVAL_CANCELLED');
    expect(eventsOf(s.host, 'tool/result')).toHaveLength(1);
    expect(await loggedOnDisk(s)).toEqual(onePerCall('call_echo'));
  });
});
