import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { logProblems } from '@deepseek-ai/dsh-core/testing';
import { AIMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { eventsOf, loggedOnDisk, onePerCall, type Setup, setup, toolMessages } from './fixtures/setup.js';

const thread = (id: string) => ({ configurable: { thread_id: id } });

/** An agent whose model (LangChain's own fake) first answers with `first`, then with a final text. */
function agentAnswering(s: Setup, first: AIMessage, version: 'v1' | 'v2') {
  const model = fakeModel().respond(first).respond(new AIMessage('I read the errors.'));
  const agent = createAgent({ model, tools: s.tools, middleware: [s.bridge.middleware(s.host)], checkpointer: new MemorySaver(), version });
  return { agent, model };
}

describe('tool calls LangChain refuses (invalid_tool_calls)', () => {
  for (const version of ['v1', 'v2'] as const) {
    it(`logs each with a coded outcome the model reads, and goes back to the model (tool node ${version})`, async () => {
      const s = await setup({ rules: { allow: ['Bash'] } });
      const first = new AIMessage({
        content: '',
        invalid_tool_calls: [
          {
            type: 'invalid_tool_call',
            id: 'call_bad_json',
            name: 'bash',
            args: '{"command": "touch made',
            error: 'Unexpected end of JSON input',
          },
          { type: 'invalid_tool_call', id: 'call_no_tool', name: 'teleport', args: '{"to": "mars"', error: 'Unexpected end of JSON input' },
        ],
      });
      const { agent, model } = agentAnswering(s, first, version);
      const result = await agent.invoke({ messages: [{ role: 'user', content: 'go' }] }, thread(`inv-${version}`));
      const messages = toolMessages(result.messages);
      expect(messages.map(([id, , status]) => [id, status])).toEqual([
        ['call_bad_json', 'error'],
        ['call_no_tool', 'error'],
      ]);
      expect(messages[0]?.[1]).toMatch(/^Error \(INVALID_ARGS\): /);
      expect(messages[1]?.[1]).toMatch(/^Error \(INVALID_ARGS\): /);
      // The loop went on: the model got a second turn, with the answers to read.
      expect(model.callCount).toBe(2);
      expect(result.messages.at(-1)?.content).toBe('I read the errors.');
      expect(
        eventsOf(s.host, 'tool/result').map(([id, data]) => [id, (data.outcome as { error?: { code?: string } }).error?.code]),
      ).toEqual([
        ['call_bad_json', 'INVALID_ARGS'],
        ['call_no_tool', 'INVALID_ARGS'],
      ]);
      expect(eventsOf(s.host, 'tool/call')[0]?.[1]).toMatchObject({ args: '{"command": "touch made' });
      expect(await loggedOnDisk(s)).toEqual(onePerCall('call_bad_json', 'call_no_tool'));
      expect(existsSync(join(s.dir, 'made'))).toBe(false);
      expect(logProblems(s.host.events.list())).toEqual([]);
    });
  }

  it('answers the refused call beside the valid ones of the same message, each once', async () => {
    const s = await setup();
    writeFileSync(join(s.dir, 'a.txt'), 'A');
    const first = new AIMessage({
      content: '',
      tool_calls: [{ type: 'tool_call', id: 'call_ok', name: 'read', args: { file_path: 'a.txt' } }],
      invalid_tool_calls: [{ type: 'invalid_tool_call', id: 'call_bad', name: 'read', args: '{file_path: a.txt}', error: 'Bad JSON' }],
    });
    const { agent, model } = agentAnswering(s, first, 'v2');
    const result = await agent.invoke({ messages: [{ role: 'user', content: 'go' }] }, thread('inv-mixed'));
    const messages = toolMessages(result.messages);
    expect(messages.map(([id, , status]) => [id, status]).sort()).toEqual([
      ['call_bad', 'error'],
      ['call_ok', 'success'],
    ]);
    expect(messages.find(([id]) => id === 'call_ok')?.[1]).toContain('A');
    expect(model.callCount).toBe(2);
    expect(await loggedOnDisk(s)).toEqual(onePerCall('call_bad', 'call_ok'));
  });

  it('answers a call to a tool the agent does not have with UNKNOWN_TOOL, logged once', async () => {
    const s = await setup();
    const first = new AIMessage({
      content: '',
      tool_calls: [{ type: 'tool_call', id: 'call_nowhere', name: 'teleport', args: { to: 'mars' } }],
    });
    const { agent, model } = agentAnswering(s, first, 'v2');
    const result = await agent.invoke({ messages: [{ role: 'user', content: 'go' }] }, thread('inv-unknown'));
    expect(toolMessages(result.messages)[0]?.[1]).toMatch(/^Error \(UNKNOWN_TOOL\): there is no tool named "teleport"/);
    expect(model.callCount).toBe(2);
    expect(await loggedOnDisk(s)).toEqual(onePerCall('call_nowhere'));
  });

  it('never runs a refused call whose arguments dsh could parse: it is denied with LANGCHAIN_INVALID_TOOL_CALL', async () => {
    const s = await setup({ rules: { allow: ['Bash'] } });
    const first = new AIMessage({
      content: '',
      invalid_tool_calls: [
        {
          type: 'invalid_tool_call',
          id: 'call_parsable',
          name: 'bash',
          args: '{"command": "touch made"}',
          error: 'the provider cut the call',
        },
      ],
    });
    const { agent } = agentAnswering(s, first, 'v2');
    const result = await agent.invoke({ messages: [{ role: 'user', content: 'go' }] }, thread('inv-parsable'));
    expect(toolMessages(result.messages)[0]?.[1]).toMatch(
      /^Denied \(PRE_EXECUTE_DENIED\): LANGCHAIN_INVALID_TOOL_CALL: .*the provider cut the call/,
    );
    expect(existsSync(join(s.dir, 'made'))).toBe(false);
    expect(await loggedOnDisk(s)).toEqual(onePerCall('call_parsable'));
  });
});
