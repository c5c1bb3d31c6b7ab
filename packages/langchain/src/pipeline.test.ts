import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { logProblems } from '@deepseek-ai/dsh-core/testing';
import { describe, expect, it } from 'vitest';
import { agentFor, eventsOf, hookPayloads, loggedOnDisk, onePerCall, setup, toolMessages } from './fixtures/setup.js';

const thread = (id: string) => ({ configurable: { thread_id: id } });

describe('dsh tools in a LangChain createAgent run', () => {
  it('reads a file through tool-fs, fires the PreToolUse hook once, and logs one tool/result', async () => {
    const s = await setup();
    writeFileSync(join(s.dir, 'notes.txt'), 'hello from disk\n');
    const { agent } = agentFor(s, [{ calls: [{ id: 'call_read', name: 'read', args: { file_path: 'notes.txt' } }] }, { text: 'done' }]);
    const result = await agent.invoke({ messages: [{ role: 'user', content: 'read the notes' }] }, thread('t1'));
    const messages = toolMessages(result.messages);
    expect(messages).toHaveLength(1);
    expect(messages[0]?.[0]).toBe('call_read');
    expect(messages[0]?.[1]).toContain('hello from disk');
    expect(hookPayloads(s)).toHaveLength(1);
    expect(hookPayloads(s)[0]).toMatchObject({ hook_event_name: 'PreToolUse', tool_name: 'Read', tool_use_id: 'call_read' });
    expect(eventsOf(s.host, 'tool/result').map(([call]) => call)).toEqual(['call_read']);
    expect(logProblems(s.host.events.list())).toEqual([]);
    expect(await loggedOnDisk(s)).toEqual(onePerCall('call_read'));
  });

  it('holds a deny rule: the body never runs and the model reads the denial', async () => {
    const s = await setup({ rules: { deny: ['Bash(touch:*)'] } });
    const { agent } = agentFor(s, [
      { calls: [{ id: 'call_touch', name: 'bash', args: { command: 'touch made-by-bash' } }] },
      { text: 'ok' },
    ]);
    const result = await agent.invoke({ messages: [{ role: 'user', content: 'make a file' }] }, thread('t2'));
    expect(existsSync(join(s.dir, 'made-by-bash'))).toBe(false);
    const [[, text, status] = ['', '', '']] = toolMessages(result.messages);
    expect(text).toMatch(/^Denied \(PRE_EXECUTE_DENIED\): .*Bash\(touch:\*\)/);
    expect(status).toBe('error');
    const results = eventsOf(s.host, 'tool/result');
    expect(results).toHaveLength(1);
    expect(results[0]?.[1]).toMatchObject({ outcome: { status: 'denied', stage: 'pre-execute' } });
    expect(await loggedOnDisk(s)).toEqual(onePerCall('call_touch'));
  });
});

describe('cancelling a LangGraph run', () => {
  it("follows the run's signal: the call ends aborted with its one tool/result, and the body never starts", async () => {
    const s = await setup({ rules: { allow: ['Bash'] } });
    const controller = new AbortController();
    s.host.events.subscribe((event) => {
      if (event.type === 'permissions/decision' && event.call === 'call_sleep') controller.abort(new Error('the user stopped the run'));
    });
    const { agent } = agentFor(s, [
      { calls: [{ id: 'call_sleep', name: 'bash', args: { command: 'touch started; sleep 30' } }] },
      { text: 'ok' },
    ]);
    await expect(
      agent.invoke({ messages: [{ role: 'user', content: 'wait' }] }, { ...thread('t3'), signal: controller.signal }),
    ).rejects.toThrow();
    await s.bridge.settled();
    const results = eventsOf(s.host, 'tool/result');
    expect(results).toHaveLength(1);
    expect(results[0]?.[1]).toMatchObject({ outcome: { status: 'error', error: { code: 'ABORTED_BEFORE_DISPATCH' } } });
    expect(existsSync(join(s.dir, 'started'))).toBe(false);
    expect(await loggedOnDisk(s)).toEqual(onePerCall('call_sleep'));
  });
});
