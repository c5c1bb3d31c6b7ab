import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { logProblems } from '@deepseek-ai/dsh-core/testing';
import { Command } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { agentFor, eventsOf, hookPayloads, loggedOnDisk, onePerCall, resultsLogged, setup, toolMessages } from './fixtures/setup.js';

const thread = (id: string) => ({ configurable: { thread_id: id } });

describe('parallel tool calls of one AI message', () => {
  for (const version of ['v1', 'v2'] as const) {
    it(`commits results in the model's order, each call once (tool node ${version})`, async () => {
      const s = await setup({ rules: { allow: ['Bash', 'Read'], deny: ['Read(secret.txt)'] } });
      writeFileSync(join(s.dir, 'a.txt'), 'A');
      writeFileSync(join(s.dir, 'secret.txt'), 'S');
      // The first body ends only once the third call has been denied: its result must still be committed first.
      s.host.events.subscribe((event) => {
        if (event.type === 'permissions/decision' && event.call === 'call_3') writeFileSync(join(s.dir, 'go'), '');
      });
      const calls = [
        { id: 'call_1', name: 'bash', args: { command: 'for i in $(seq 3000); do [ -e go ] && break; sleep 0.02; done; echo first' } },
        { id: 'call_2', name: 'read', args: { file_path: 'a.txt' } },
        { id: 'call_3', name: 'read', args: { file_path: 'secret.txt' } },
        { id: 'call_4', name: 'read', args: { file_path: 'missing.txt' } },
      ];
      const { agent } = agentFor(s, [{ calls }, { text: 'ok' }], [], version);
      const result = await agent.invoke({ messages: [{ role: 'user', content: 'go' }] }, thread(`p-${version}`));
      const messages = toolMessages(result.messages);
      expect(messages.map(([id]) => id)).toEqual(['call_1', 'call_2', 'call_3', 'call_4']);
      expect(messages[0]?.[1]).toContain('first');
      expect(messages[1]?.[1]).toContain('A');
      expect(messages[2]?.[1]).toMatch(/^Denied/);
      expect(messages[3]?.[1]).toMatch(/^Error \(/);
      expect(eventsOf(s.host, 'tool/result').map(([id]) => id)).toEqual(['call_1', 'call_2', 'call_3', 'call_4']);
      expect(eventsOf(s.host, 'tool/call').map(([id]) => id)).toEqual(['call_1', 'call_2', 'call_3', 'call_4']);
      expect(hookPayloads(s)).toHaveLength(4);
      expect(logProblems(s.host.events.list())).toEqual([]);
      expect(await loggedOnDisk(s)).toEqual(onePerCall('call_1', 'call_2', 'call_3', 'call_4'));
    });

    it(`runs the calls around an interrupted one once, and the interrupted one after its resume (tool node ${version})`, async () => {
      const s = await setup({ rules: { allow: ['Read'], ask: ['Bash(echo:*)'] } });
      writeFileSync(join(s.dir, 'a.txt'), 'A');
      writeFileSync(join(s.dir, 'b.txt'), 'B');
      const calls = [
        { id: 'call_a', name: 'read', args: { file_path: 'a.txt' } },
        { id: 'call_ask', name: 'bash', args: { command: 'echo asked' } },
        { id: 'call_b', name: 'read', args: { file_path: 'b.txt' } },
      ];
      const { agent } = agentFor(s, [{ calls }, { text: 'ok' }], [], version);
      const first = await agent.invoke({ messages: [{ role: 'user', content: 'go' }] }, thread(`i-${version}`));
      expect(first.__interrupt__).toHaveLength(1);
      // The calls that needed nobody finish (v1's tool node stops waiting for them at the interrupt); the
      // one waiting for a person does not hold them back.
      await resultsLogged(s.host, ['call_a', 'call_b']);
      expect(eventsOf(s.host, 'tool/result').map(([id]) => id)).toEqual(['call_a', 'call_b']);
      const second = await agent.invoke(new Command({ resume: { decisions: [{ type: 'approve' }] } }), thread(`i-${version}`));
      expect(second.__interrupt__ ?? []).toEqual([]);
      const messages = toolMessages(second.messages);
      expect(messages.map(([id]) => id).sort()).toEqual(['call_a', 'call_ask', 'call_b']);
      expect(messages.find(([id]) => id === 'call_ask')?.[1]).toContain('asked');
      // Whatever the node re-ran on resume, each call was logged, hooked and answered once.
      expect(eventsOf(s.host, 'tool/call').map(([id]) => id)).toEqual(['call_a', 'call_ask', 'call_b']);
      expect(eventsOf(s.host, 'tool/result').map(([id]) => id)).toEqual(['call_a', 'call_b', 'call_ask']);
      expect(hookPayloads(s).map((p) => p.tool_use_id)).toEqual(['call_a', 'call_ask', 'call_b']);
      expect(logProblems(s.host.events.list())).toEqual([]);
      expect(await loggedOnDisk(s)).toEqual(onePerCall('call_a', 'call_ask', 'call_b'));
    });
  }
});
