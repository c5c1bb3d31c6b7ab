import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { defineTool, z } from '@deepseek-ai/dsh-core';
import { Runner } from '@openai/agents-core';
import { describe, expect, it } from 'vitest';
import { toolOutputs } from './fixtures/scripted-model.js';
import { agentWith, logOnDisk, oneCallAndResultEach, setup } from './fixtures/setup.js';

describe('calls the SDK refuses before dsh sees them', () => {
  it('logs a call whose arguments are not JSON as INVALID_ARGS, and the run goes on', async () => {
    const s = await setup({ rules: { allow: ['Read'] } });
    const { agent, model, runner } = agentWith(s.tools, [
      { calls: [{ id: 'call_bad', name: 'read', args: '{"file_path": ' }] },
      { text: 'ok' },
    ]);
    // The SDK asks the person about a call whose arguments it cannot parse, without asking dsh.
    let result = await runner.run(agent, 'read');
    expect(result.interruptions).toHaveLength(1);
    for (const item of result.interruptions) {
      const asked = await s.bridge.describe(item);
      expect(asked).toMatchObject({
        state: 'settled',
        status: 'error',
        tool: 'read',
        text: expect.stringMatching(/^Error \(INVALID_ARGS\)/),
      });
    }
    await s.bridge.settle(result.state);
    result = await runner.run(agent, result.state);
    expect(result.finalOutput).toBe('ok');
    // The SDK never hands dsh the model's text for such a call: the model reads the SDK's parse error.
    expect(toolOutputs(model.requests[1])[0]?.[1]).toMatch(/valid JSON/);
    await oneCallAndResultEach(s, model.calls);
    const outcome = logOnDisk(s.sessionLog).find((e) => e.type === 'tool/result')?.data;
    expect(outcome).toMatchObject({ outcome: { status: 'error', error: { code: 'INVALID_ARGS' } } });
  });

  it("gives a call whose arguments are JSON but not an object dsh's INVALID_ARGS result to read", async () => {
    const s = await setup({ rules: { allow: ['Read'] } });
    const { agent, model, runner } = agentWith(s.tools, [
      { calls: [{ id: 'call_list', name: 'read', args: '["notes.txt"]' }] },
      { text: 'ok' },
    ]);
    let result = await runner.run(agent, 'read');
    const [item] = result.interruptions;
    if (item === undefined) throw new Error('no interruption');
    expect(await s.bridge.describe(item)).toMatchObject({ state: 'settled', text: expect.stringMatching(/^Error \(INVALID_ARGS\)/) });
    await s.bridge.settle(result.state);
    result = await runner.run(agent, result.state);
    expect(result.finalOutput).toBe('ok');
    expect(toolOutputs(model.requests[1])[0]?.[1]).toMatch(/^Error \(INVALID_ARGS\)/);
    await oneCallAndResultEach(s, model.calls);
  });

  it('logs a call to a tool the agent does not have as UNKNOWN_TOOL, and the run goes on', async () => {
    const s = await setup({ rules: { allow: ['noop'] } });
    let ran = 0;
    s.host.tools.register(defineTool({ name: 'noop', description: 'Counts its runs.', input: z.object({}), execute: () => ++ran }));
    const { agent, model } = agentWith(s.bridge.tools(s.host, { names: ['read'] }), [
      {
        calls: [
          { id: 'call_nope', name: 'nope', args: { x: 1 } },
          // A dsh tool the agent was not given: logged, never run.
          { id: 'call_bash', name: 'bash', args: { command: 'touch made.txt' } },
          { id: 'call_noop', name: 'noop', args: {} },
        ],
      },
      { text: 'ok' },
    ]);
    const runner = new Runner({ tracingDisabled: true, ...s.bridge.runConfig });
    const result = await runner.run(agent, 'go');
    expect(result.finalOutput).toBe('ok');
    const outputs = new Map(toolOutputs(model.requests[1]));
    expect(outputs.get('call_nope')).toMatch(/^Error \(UNKNOWN_TOOL\)/);
    // Logged through dsh like any call (here its arguments fail first), and never run.
    expect(outputs.get('call_bash')).toMatch(/^(Denied|Error) \(/);
    expect(outputs.get('call_noop')).toMatch(/^Denied \(.*\): the agent has no tool named noop/);
    expect(existsSync(join(s.dir, 'made.txt'))).toBe(false);
    expect(ran).toBe(0);
    await oneCallAndResultEach(s, model.calls);
  });
});
