import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { checkHistory, runAgent } from '@deepseek-ai/dsh-agent';
import type { AnySessionEvent, Outcome } from '@deepseek-ai/dsh-core';
import { logProblems, scriptedApproval } from '@deepseek-ai/dsh-core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { agentFile, cleanupAll, type RealHost, realHost, scriptedModel, type TempProject, tempProject } from './fixtures/kit.js';

afterEach(cleanupAll);

// The hook people already run under Claude Code: block rm -rf, and note who asked (agent_type, or main).
const blockRmRf = `#!/usr/bin/env bash
input=$(cat)
printf '%s\\n' "$(printf '%s' "$input" | jq -r '.agent_type // "main"') $(printf '%s' "$input" | jq -r '.tool_input.command')" >> "$CLAUDE_PROJECT_DIR/hook-saw.txt"
if printf '%s' "$input" | jq -r '.tool_input.command' | grep -Eq 'rm[[:space:]]+-rf'; then
  echo "Blocked: rm -rf is not allowed" >&2
  exit 2
fi
`;

/** A project with the hook, permission rules in `.claude/settings.json`, and three subagent types. */
function project(): TempProject {
  const p = tempProject();
  p.write('keep/important.txt', 'precious\n');
  const hook = p.write('.claude/hooks/block-rm.sh', blockRmRf, 0o755);
  p.write(
    '.claude/settings.json',
    JSON.stringify({
      permissions: {
        allow: ['Agent', 'Read', 'Bash(ls *)', 'Bash(sleep *)'],
        deny: ['Bash(curl *)'],
        ask: ['Bash(echo *)'],
      },
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: hook }] }] },
    }),
  );
  p.write('.claude/agents/helper.md', agentFile('helper', { description: 'Does anything it is asked.' }, 'HELPER'));
  p.write('.claude/agents/helper2.md', agentFile('helper2', { description: 'A helper of helpers.' }, 'HELPER2'));
  p.write('.claude/agents/reader.md', agentFile('reader', { description: 'Reads files.', tools: 'read' }, 'READER'));
  return p;
}

const task = (subagent_type: string, prompt = 'do it') => ({ name: 'task', args: { description: 'delegate', prompt, subagent_type } });
const bash = (command: string) => ({ name: 'bash', args: { command } });

function outcomeOf(t: RealHost, call: string): Outcome | undefined {
  const event = t.events('tool/result').find((e) => e.call === call);
  return event?.type === 'tool/result' ? event.data.outcome : undefined;
}

function callEvent(t: RealHost, call: string): Extract<AnySessionEvent, { type: 'tool/call' }> | undefined {
  return t.events('tool/call').find((e): e is Extract<AnySessionEvent, { type: 'tool/call' }> => e.type === 'tool/call' && e.call === call);
}

async function main(t: RealHost, model: ReturnType<typeof scriptedModel>, signal?: AbortSignal) {
  return runAgent({
    host: t.host,
    model: model.model,
    system: 'MAIN',
    messages: [{ role: 'user', text: 'go' }],
    ...(signal === undefined ? {} : { signal }),
  });
}

describe('subagents on the real pipeline (tool-fs, tool-bash, hooks-bridge, permissions)', () => {
  it("blocks a subagent's rm -rf with the Claude hook script exactly as it blocks the parent's", async () => {
    const p = project();
    const model = scriptedModel({
      MAIN: [{ calls: [bash('rm -rf keep')] }, { calls: [task('helper')] }, { text: 'all done' }],
      HELPER: [{ calls: [bash('rm -rf keep')] }, { text: 'helper finished' }],
    });
    const t = await realHost(p, model.model);
    const result = await main(t, model);
    expect(result.stop).toBe('end');
    const parent = outcomeOf(t, 'MAIN-0-0');
    const nested = outcomeOf(t, 'MAIN-1-0:agent:0');
    expect(parent).toMatchObject({ status: 'denied', stage: 'pre-execute', by: 'hooks-bridge', reason: 'Blocked: rm -rf is not allowed' });
    expect(nested).toEqual(parent);
    expect(p.read('keep/important.txt')).toBe('precious\n');
    expect(p.read('hook-saw.txt')).toBe('main rm -rf keep\nhelper rm -rf keep\n');
    // The nested call carries the task call's token, its parent id and the subagent's identity.
    const taskCall = callEvent(t, 'MAIN-1-0');
    expect(callEvent(t, 'MAIN-1-0:agent:0')).toMatchObject({
      token: taskCall?.token,
      data: { name: 'bash', parent: 'MAIN-1-0', agent: { id: 'MAIN-1-0', type: 'helper' } },
    });
    expect(outcomeOf(t, 'MAIN-1-0')).toMatchObject({ status: 'ok', output: 'helper finished' });
    expect(t.events('subagent/end')[0]?.data).toMatchObject({ agent: { type: 'helper' }, stop: 'end', turns: 2, outcome: 'ok', calls: 1 });
    expect(logProblems(t.events())).toEqual([]);
  });

  it('holds a deny rule inside the subagent', async () => {
    const p = project();
    const model = scriptedModel({
      MAIN: [{ calls: [task('helper')] }, { text: 'ok' }],
      HELPER: [{ calls: [bash('curl -s http://127.0.0.1:9/'), bash('ls keep')] }, { text: 'tried' }],
    });
    const t = await realHost(p, model.model);
    await main(t, model);
    expect(outcomeOf(t, 'MAIN-0-0:agent:0')).toMatchObject({ status: 'denied', stage: 'pre-execute', by: 'permissions' });
    expect(outcomeOf(t, 'MAIN-0-0:agent:0')).toMatchObject({ reason: expect.stringContaining('Bash(curl *)') });
    expect(outcomeOf(t, 'MAIN-0-0:agent:1')).toMatchObject({ status: 'ok' });
    expect(logProblems(t.events())).toEqual([]);
  });

  it("puts an ask inside the subagent to the parent's provider, labelled with the subagent; with none, denies at once", async () => {
    const p = project();
    const model = scriptedModel({
      MAIN: [{ calls: [task('helper')] }, { text: 'ok' }],
      HELPER: [{ calls: [bash('echo from-helper')] }, { text: 'echoed' }],
    });
    const approval = scriptedApproval('allowed-once');
    const t = await realHost(p, model.model, { approval: approval.provider });
    await main(t, model);
    expect(approval.requests).toHaveLength(1);
    expect(approval.requests[0]?.call).toMatchObject({ id: 'MAIN-0-0:agent:0', agent: { id: 'MAIN-0-0', type: 'helper' } });
    expect(outcomeOf(t, 'MAIN-0-0:agent:0')).toMatchObject({ status: 'ok', output: expect.objectContaining({ stdout: 'from-helper\n' }) });

    // The same subagent on a host with no approval provider: denied at once, and the subagent goes on.
    const again = scriptedModel({
      MAIN: [{ calls: [task('helper')] }, { text: 'ok' }],
      HELPER: [{ calls: [bash('echo from-helper')] }, { text: 'could not echo' }],
    });
    const bare = await realHost(project(), again.model);
    const result = await main(bare, again);
    expect(result.stop).toBe('end');
    expect(outcomeOf(bare, 'MAIN-0-0:agent:0')).toMatchObject({ status: 'denied', stage: 'approval', code: 'APPROVAL_UNAVAILABLE' });
    expect(outcomeOf(bare, 'MAIN-0-0')).toMatchObject({ status: 'ok', output: 'could not echo' });
  });

  it('keeps a subagent whose definition lists only read from running bash', async () => {
    const p = project();
    const model = scriptedModel({
      MAIN: [{ calls: [task('reader')] }, { text: 'ok' }],
      READER: [{ calls: [bash('ls keep'), { name: 'read', args: { file_path: join(p.dir, 'keep/important.txt') } }] }, { text: 'read it' }],
    });
    const t = await realHost(p, model.model);
    await main(t, model);
    expect(model.toolsSeenBy('READER')).toEqual(['read']);
    expect(outcomeOf(t, 'MAIN-0-0:agent:0')).toMatchObject({
      status: 'denied',
      stage: 'pre-execute',
      by: 'agent/offered-tools',
      reason: 'AGENT_TOOL_NOT_OFFERED: the tool "bash" was not offered for this turn; it may call: read',
    });
    expect(outcomeOf(t, 'MAIN-0-0:agent:1')).toMatchObject({ status: 'ok' });
    // Refused before any hook: the script never saw the call.
    expect(existsSync(join(p.dir, 'hook-saw.txt'))).toBe(false);
    expect(logProblems(t.events())).toEqual([]);
  });

  it('aborting the parent mid-subagent leaves one result per call everywhere', async () => {
    const p = project();
    const controller = new AbortController();
    const model = scriptedModel({
      MAIN: [{ calls: [task('helper'), bash('ls keep')] }, { text: 'never' }],
      HELPER: [{ calls: [bash('sleep 987'), bash('ls keep')] }, { text: 'never' }],
    });
    const t = await realHost(p, model.model);
    // Abort once the subagent's sleep is dispatched: its body has started.
    t.host.hooks.execute.tap('abort-when-running', (ctx, next) => {
      const running = next();
      if (ctx.call.id === 'MAIN-0-0:agent:0') setImmediate(() => controller.abort());
      return running;
    });
    const result = await main(t, model, controller.signal);
    expect(result.stop).toBe('aborted');
    expect(() => checkHistory(result.messages)).not.toThrow();
    expect(result.messages.at(-1)).toMatchObject({ role: 'tool', results: [{ id: 'MAIN-0-0' }, { id: 'MAIN-0-1' }] });
    const calls = t.events('tool/call').map((e) => e.call);
    const results = t.events('tool/result').map((e) => e.call);
    expect(calls).toEqual(['MAIN-0-0', 'MAIN-0-0:agent:0', 'MAIN-0-0:agent:1', 'MAIN-0-1']);
    expect([...results].sort()).toEqual([...calls].sort());
    expect(outcomeOf(t, 'MAIN-0-0:agent:0')).toMatchObject({ status: 'error', error: { code: 'ABORTED' } });
    expect(outcomeOf(t, 'MAIN-0-0:agent:1')).toMatchObject({ status: 'error', error: { code: 'ABORTED_BEFORE_DISPATCH' } });
    expect(outcomeOf(t, 'MAIN-0-0')).toMatchObject({ status: 'error', error: { code: 'ABORTED' } });
    expect(outcomeOf(t, 'MAIN-0-1')).toMatchObject({ status: 'error', error: { code: 'ABORTED_BEFORE_DISPATCH' } });
    expect(t.events('subagent/end')[0]?.data).toMatchObject({ stop: 'aborted', outcome: 'error', code: 'ABORTED' });
    // subagent/end comes before the task call's result.
    const order = t.events().map((e) => `${e.type}:${e.call ?? ''}`);
    expect(order.indexOf('subagent/end:MAIN-0-0')).toBeLessThan(order.indexOf('tool/result:MAIN-0-0'));
    expect(logProblems(t.events())).toEqual([]);
    expect(execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })).not.toMatch(/^sleep 987$/m);
  });

  it('stops a subagent that spawns a subagent at the depth limit: task is not offered there, and a call to it is refused', async () => {
    const p = project();
    const model = scriptedModel({
      MAIN: [{ calls: [task('helper')] }, { text: 'ok' }],
      HELPER: [{ calls: [task('helper2')] }, { text: 'helper done' }],
      HELPER2: [{ calls: [task('helper')] }, { text: 'helper2 done' }],
    });
    const t = await realHost(p, model.model, { subagents: { maxDepth: 2 } });
    await main(t, model);
    expect(model.toolsSeenBy('HELPER')).toContain('task');
    expect(model.toolsSeenBy('HELPER2')).not.toContain('task');
    const deepest = 'MAIN-0-0:agent:0:agent:0';
    expect(outcomeOf(t, deepest)).toMatchObject({ status: 'denied', reason: expect.stringContaining('AGENT_TOOL_NOT_OFFERED') });
    expect(outcomeOf(t, 'MAIN-0-0:agent:0')).toMatchObject({ status: 'ok', output: 'helper2 done' });
    expect(outcomeOf(t, 'MAIN-0-0')).toMatchObject({ status: 'ok', output: 'helper done' });
    expect(t.events('subagent/start').map((e) => e.type === 'subagent/start' && [e.call, e.data.depth, e.data.agent.type])).toEqual([
      ['MAIN-0-0', 1, 'helper'],
      ['MAIN-0-0:agent:0', 2, 'helper2'],
    ]);
    const token = callEvent(t, 'MAIN-0-0')?.token;
    expect(callEvent(t, deepest)).toMatchObject({ token, data: { agent: { id: 'MAIN-0-0:agent:0', type: 'helper2' } } });
    expect(logProblems(t.events())).toEqual([]);
  });
});
