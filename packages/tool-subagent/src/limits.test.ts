import { execFileSync } from 'node:child_process';
import { runAgent } from '@deepseek-ai/dsh-agent';
import type { Host, Outcome } from '@deepseek-ai/dsh-core';
import { createTestHost, logProblems } from '@deepseek-ai/dsh-core/testing';
import { timeoutPolicy } from '@deepseek-ai/dsh-timeout-policy';
import { toolBash } from '@deepseek-ai/dsh-tool-bash';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupAll, type ScriptedModel, scriptedModel, systemText, tempProject } from './fixtures/kit.js';
import { type ToolSubagentOptions, toolSubagent } from './index.js';

afterEach(cleanupAll);

const task = (subagent_type: string | undefined, prompt = 'do it') => ({
  name: 'task',
  args: subagent_type === undefined ? { description: 'delegate', prompt } : { description: 'delegate', prompt, subagent_type },
});
const bash = (command: string) => ({ name: 'bash', args: { command } });

/** A host with the real file and bash tools (every call allowed) and subagents. */
async function hostWith(
  model: ScriptedModel,
  options: Partial<ToolSubagentOptions> = {},
  extra: Parameters<typeof createTestHost>[0] = {},
) {
  const p = tempProject();
  p.write('a.txt', 'alpha\n');
  const t = await createTestHost({
    ...extra,
    plugins: [
      ...(extra.plugins ?? []),
      toolBash({ cwd: p.dir, sandbox: { provider: 'none' } }),
      toolFs({ cwd: p.dir }),
      toolSubagent({ model: model.model, projectDir: p.dir, homeDir: p.home, ...options }),
    ],
  });
  const run = () => runAgent({ host: t.host, model: model.model, system: 'MAIN', messages: [{ role: 'user', text: 'go' }] });
  return { host: t.host, project: p, run };
}

function outcomeOf(host: Host, call: string): Outcome | undefined {
  const event = host.events.list().find((e) => e.type === 'tool/result' && e.call === call);
  return event?.type === 'tool/result' ? event.data.outcome : undefined;
}

describe('limits and narrowing', () => {
  it('runs the built-in general-purpose type when no type is named, and refuses an unknown type', async () => {
    const model = scriptedModel({
      MAIN: [{ calls: [task(undefined), task('nobody')] }, { text: 'ok' }],
      GENERAL: [{ text: 'general answer' }],
    });
    const { host, run } = await hostWith(model, { generalPurposePrompt: 'GENERAL' });
    await run();
    expect(outcomeOf(host, 'MAIN-0-0')).toMatchObject({ status: 'ok', output: 'general answer' });
    expect(outcomeOf(host, 'MAIN-0-1')).toMatchObject({ status: 'error', error: { code: 'SUBAGENT_UNKNOWN_TYPE' } });
    expect(model.requests.find((r) => systemText(r) !== 'MAIN')?.tools.map((t) => t.name)).not.toContain('task');
  });

  it('reads Claude Code tool names, takes disallowedTools away, and never widens a nested subagent past its caller', async () => {
    const model = scriptedModel({
      MAIN: [{ calls: [task('outer')] }, { text: 'ok' }],
      OUTER: [{ calls: [task('inner')] }, { text: 'outer done' }],
      INNER: [{ calls: [bash('ls'), { name: 'read', args: { file_path: 'a.txt' } }] }, { text: 'inner done' }],
    });
    const { host, run } = await hostWith(model, {
      maxDepth: 2,
      agents: [
        { name: 'outer', description: 'o', tools: 'Read, Grep, Task', disallowedTools: ['Grep'], prompt: 'OUTER' },
        { name: 'inner', description: 'i', tools: ['Bash', 'Read', 'write'], prompt: 'INNER' },
      ],
    });
    await run();
    expect(model.toolsSeenBy('OUTER').sort()).toEqual(['read', 'task']);
    expect(model.toolsSeenBy('INNER')).toEqual(['read']);
    expect(outcomeOf(host, 'MAIN-0-0:agent:0:agent:0')).toMatchObject({
      status: 'denied',
      // The loop offers the subagent only its tools and refuses any other call (runAgent's `tools`).
      reason: expect.stringContaining('AGENT_TOOL_NOT_OFFERED'),
    });
    expect(outcomeOf(host, 'MAIN-0-0:agent:0:agent:1')).toMatchObject({ status: 'ok' });
  });

  it('ends a subagent at maxTurns with SUBAGENT_MAX_TURNS', async () => {
    const looping = { calls: [{ name: 'read', args: { file_path: 'a.txt' } }] };
    const model = scriptedModel({ MAIN: [{ calls: [task('looper')] }, { text: 'ok' }], LOOP: [looping, looping, looping, looping] });
    const { host, run } = await hostWith(model, { maxTurns: 3, agents: [{ name: 'looper', description: 'l', prompt: 'LOOP' }] });
    await run();
    expect(outcomeOf(host, 'MAIN-0-0')).toMatchObject({ status: 'error', error: { code: 'SUBAGENT_MAX_TURNS', data: { turns: 3 } } });
    const end = host.events.list().find((e) => e.type === 'subagent/end');
    expect(end?.data).toMatchObject({ stop: 'max-turns', turns: 3, calls: 3, usage: { inputTokens: 30, outputTokens: 15 } });
  });

  it('stops the whole task tree at maxToolCalls, answering every call, with SUBAGENT_CALL_LIMIT', async () => {
    const reads = { calls: [0, 1, 2].map(() => ({ name: 'read', args: { file_path: 'a.txt' } })) };
    const model = scriptedModel({
      MAIN: [{ calls: [task('reader')] }, { text: 'ok' }],
      READ: [reads, reads, reads],
    });
    const { host, run } = await hostWith(model, { maxToolCalls: 4, agents: [{ name: 'reader', description: 'r', prompt: 'READ' }] });
    await run();
    const statuses = ['0', '1', '2', '3', '4', '5'].map((n) => outcomeOf(host, `MAIN-0-0:agent:${n}`)?.status);
    expect(statuses).toEqual(['ok', 'ok', 'ok', 'ok', 'denied', 'denied']);
    expect(outcomeOf(host, 'MAIN-0-0:agent:4')).toMatchObject({ reason: expect.stringMatching(/^SUBAGENT_CALL_LIMIT: /) });
    expect(outcomeOf(host, 'MAIN-0-0:agent:6')).toBeUndefined();
    expect(outcomeOf(host, 'MAIN-0-0')).toMatchObject({ status: 'error', error: { code: 'SUBAGENT_CALL_LIMIT' } });
    expect(logProblems(host.events.list())).toEqual([]);
  });

  it('runs a definition on the model it names', async () => {
    const main = scriptedModel({ MAIN: [{ calls: [task('fast')] }, { text: 'ok' }] });
    const fast = scriptedModel({ FAST: [{ text: 'from the fast model' }] });
    const { host, run } = await hostWith(main, {
      models: { haiku: fast.model },
      agents: [{ name: 'fast', description: 'f', model: 'haiku', prompt: 'FAST' }],
    });
    await run();
    expect(outcomeOf(host, 'MAIN-0-0')).toMatchObject({ status: 'ok', output: 'from the fast model' });
    expect(main.requests.some((r) => systemText(r) === 'FAST')).toBe(false);
  });

  it("ends the subagent at the task call's deadline, every nested call answered and no process left", async () => {
    const model = scriptedModel({ MAIN: [{ calls: [task('sleeper')] }, { text: 'ok' }], SLEEP: [{ calls: [bash('sleep 986')] }] });
    const { host, run } = await hostWith(
      model,
      { agents: [{ name: 'sleeper', description: 's', prompt: 'SLEEP' }] },
      { plugins: [timeoutPolicy({ tools: { task: 300 } })] },
    );
    const result = await run();
    expect(result.stop).toBe('end');
    expect(outcomeOf(host, 'MAIN-0-0')).toMatchObject({ status: 'error', error: { code: 'TOOL_TIMEOUT' } });
    const end = host.events.list().find((e) => e.type === 'subagent/end');
    expect(end?.data).toMatchObject({ outcome: 'error', code: 'ABORTED' });
    expect(logProblems(host.events.list())).toEqual([]);
    expect(execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })).not.toMatch(/^sleep 986$/m);
  });
});
