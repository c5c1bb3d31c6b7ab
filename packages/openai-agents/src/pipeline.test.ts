import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { logProblems } from '@deepseek-ai/dsh-core/testing';
import { describe, expect, it } from 'vitest';
import { toolOutputs } from './fixtures/scripted-model.js';
import { agentWith, eventsOf, oneCallAndResultEach, setup } from './fixtures/setup.js';

describe('dsh tools in an OpenAI Agents run', () => {
  it('reads a file through tool-fs, fires the PreToolUse hook once, and logs one tool/result', async () => {
    const s = await setup({});
    writeFileSync(join(s.dir, 'notes.txt'), 'hello from disk\n');
    const { agent, model, runner } = agentWith(s.tools, [
      { calls: [{ id: 'call_read', name: 'read', args: { file_path: 'notes.txt' } }] },
      { text: 'done' },
    ]);
    const result = await runner.run(agent, 'read the notes');
    expect(result.finalOutput).toBe('done');
    const outputs = toolOutputs(model.requests[1]);
    expect(outputs).toHaveLength(1);
    expect(outputs[0]?.[0]).toBe('call_read');
    expect(outputs[0]?.[1]).toContain('hello from disk');
    const payloads = readFileSync(s.hookLog, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(payloads).toHaveLength(1);
    expect(payloads[0]).toMatchObject({ hook_event_name: 'PreToolUse', tool_name: 'Read', tool_use_id: 'call_read' });
    expect(eventsOf(s.host, 'tool/result').map(([call]) => call)).toEqual(['call_read']);
    expect(logProblems(s.host.events.list())).toEqual([]);
    await oneCallAndResultEach(s, model.calls);
  });

  it('offers plain JSON Schemas: no Standard Schema marker, which agents-core 0.20 refuses without strict mode', async () => {
    const s = await setup({});
    const read = s.tools.find((t) => t.name === 'read');
    expect(read?.strict).toBe(false);
    expect(read && '~standard' in read.parameters).toBe(false);
    expect(read?.parameters).toMatchObject({ type: 'object', properties: { file_path: { type: 'string' } } });
    expect(read?.parameters).not.toHaveProperty('$schema');
  });

  it('holds a deny rule: the body never runs and the model reads the denial', async () => {
    const s = await setup({ rules: { deny: ['Bash(touch:*)'] } });
    const { agent, model, runner } = agentWith(s.tools, [
      { calls: [{ id: 'call_touch', name: 'bash', args: { command: 'touch made-by-bash' } }] },
      { text: 'ok' },
    ]);
    await runner.run(agent, 'make a file');
    expect(existsSync(join(s.dir, 'made-by-bash'))).toBe(false);
    const [[, text] = ['', '']] = toolOutputs(model.requests[1]);
    expect(text).toMatch(/^Denied \(PRE_EXECUTE_DENIED\): .*Bash\(touch:\*\)/);
    const results = eventsOf(s.host, 'tool/result');
    expect(results).toHaveLength(1);
    expect(results[0]?.[1]).toMatchObject({ outcome: { status: 'denied', stage: 'pre-execute' } });
    await oneCallAndResultEach(s, model.calls);
  });

  it('lets a blocking hook script deny the call with its message', async () => {
    const s = await setup({});
    const { agent, model, runner } = agentWith(s.tools, [
      { calls: [{ id: 'call_hook', name: 'bash', args: { command: 'echo FORBIDDEN > blocked.txt' } }] },
      { text: 'ok' },
    ]);
    await runner.run(agent, 'try it');
    expect(existsSync(join(s.dir, 'blocked.txt'))).toBe(false);
    const [[, text] = ['', '']] = toolOutputs(model.requests[1]);
    expect(text).toContain('the test hook blocks FORBIDDEN');
    await oneCallAndResultEach(s, model.calls);
  });

  it('answers parallel calls in the model order, each with exactly one tool/result', async () => {
    const s = await setup({ rules: { allow: ['Bash(sleep:*)', 'Bash(echo:*)', 'Read'], deny: ['Read(secret.txt)'] } });
    writeFileSync(join(s.dir, 'a.txt'), 'A');
    writeFileSync(join(s.dir, 'secret.txt'), 'S');
    const calls = [
      // The first body is the slowest: the answers must still come back in this order.
      { id: 'call_1', name: 'bash', args: { command: 'sleep 0.3; echo first' } },
      { id: 'call_2', name: 'read', args: { file_path: 'a.txt' } },
      { id: 'call_3', name: 'read', args: { file_path: 'secret.txt' } },
      { id: 'call_4', name: 'read', args: { file_path: 'missing.txt' } },
    ];
    const { agent, model, runner } = agentWith(s.tools, [{ calls }, { text: 'ok' }]);
    const result = await runner.run(agent, 'go');
    expect(result.interruptions).toEqual([]);
    const outputs = toolOutputs(model.requests[1]);
    expect(outputs.map(([id]) => id)).toEqual(['call_1', 'call_2', 'call_3', 'call_4']);
    expect(outputs[0]?.[1]).toContain('first');
    expect(outputs[1]?.[1]).toContain('A');
    expect(outputs[2]?.[1]).toMatch(/^Denied/);
    expect(outputs[3]?.[1]).toMatch(/^Error \(/);
    const results = eventsOf(s.host, 'tool/result').map(([call]) => call);
    expect([...results].sort()).toEqual(['call_1', 'call_2', 'call_3', 'call_4']);
    expect(logProblems(s.host.events.list())).toEqual([]);
    // One result each, in the model's order, whatever order the bodies finished in.
    expect(await oneCallAndResultEach(s, model.calls)).toEqual(['call_1', 'call_2', 'call_3', 'call_4']);
  });
});
