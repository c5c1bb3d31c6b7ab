import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { logProblems } from '@deepseek-ai/dsh-core/testing';
import { Command } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { agentFor, eventsOf, loggedOnDisk, onePerCall, setup, toolMessages } from './fixtures/setup.js';
import type { DshInterruptValue, DshResumeValue } from './index.js';

type Decision = DshResumeValue['decisions'][0];

const echo = (id: string, word: string) => ({ id, name: 'bash', args: { command: `echo ${word} > ${word}.txt` } });

/**
 * Runs one AI message of asked calls to the end, answering each interrupt by
 * the call id it shows (never by its position), and returns the call ids in
 * the order a person was shown them.
 */
async function answerByCallId(version: 'v1' | 'v2', decisions: Record<string, Decision>) {
  const s = await setup({ rules: { ask: ['Bash(echo:*)'] } });
  const calls = Object.keys(decisions).map((id) => echo(id, id));
  const { agent } = agentFor(s, [{ calls }, { text: 'done' }], [], version);
  const config = { configurable: { thread_id: `order-${version}` } };
  const shown: string[] = [];
  let result = await agent.invoke({ messages: [{ role: 'user', content: 'go' }] }, config);
  for (let round = 0; round <= calls.length && (result.__interrupt__ ?? []).length > 0; round += 1) {
    const resume: Record<string, DshResumeValue> = {};
    for (const question of result.__interrupt__ ?? []) {
      const callId = (question.value as DshInterruptValue).dsh.callId;
      shown.push(callId);
      resume[question.id as string] = { decisions: [decisions[callId] as Decision] };
    }
    result = await agent.invoke(new Command({ resume }), config);
  }
  return { s, result, shown };
}

describe('resume values reach the call they answer, by call id', () => {
  for (const version of ['v1', 'v2'] as const) {
    it(`approves the first of two asked calls and rejects the second: only the first runs (tool node ${version})`, async () => {
      const { s, result, shown } = await answerByCallId(version, {
        call_1: { type: 'approve' },
        call_2: { type: 'reject', message: 'not the second' },
      });
      expect(result.__interrupt__ ?? []).toEqual([]);
      expect(shown.sort()).toEqual(['call_1', 'call_2']);
      expect(eventsOf(s.host, 'approval/answer').map(([id, data]) => [id, data.answer])).toEqual([
        ['call_1', 'allowed-once'],
        ['call_2', 'rejected'],
      ]);
      expect(existsSync(join(s.dir, 'call_1.txt'))).toBe(true);
      expect(existsSync(join(s.dir, 'call_2.txt'))).toBe(false);
      const messages = toolMessages(result.messages);
      expect(messages.find(([id]) => id === 'call_2')?.[1]).toMatch(/^Denied \(APPROVAL_REJECTED\): not the second/);
      expect(await loggedOnDisk(s)).toEqual(onePerCall('call_1', 'call_2'));
      expect(logProblems(s.host.events.list())).toEqual([]);
    });

    it(`shows every one of three asked calls and applies each answer to its own call (tool node ${version})`, async () => {
      const { s, result, shown } = await answerByCallId(version, {
        call_1: { type: 'approve' },
        call_2: { type: 'reject' },
        call_3: { type: 'approve' },
      });
      expect(result.__interrupt__ ?? []).toEqual([]);
      expect(shown.sort()).toEqual(['call_1', 'call_2', 'call_3']);
      expect(eventsOf(s.host, 'approval/answer').map(([id, data]) => [id, data.answer])).toEqual([
        ['call_1', 'allowed-once'],
        ['call_2', 'rejected'],
        ['call_3', 'allowed-once'],
      ]);
      expect(['call_1', 'call_2', 'call_3'].map((id) => existsSync(join(s.dir, `${id}.txt`)))).toEqual([true, false, true]);
      expect(await loggedOnDisk(s)).toEqual(onePerCall('call_1', 'call_2', 'call_3'));
      expect(logProblems(s.host.events.list())).toEqual([]);
    });
  }
});
