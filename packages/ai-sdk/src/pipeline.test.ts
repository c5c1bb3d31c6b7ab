import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Host } from '@deepseek-ai/dsh-core';
import { logProblems } from '@deepseek-ai/dsh-core/testing';
import { hooksBridge } from '@deepseek-ai/dsh-hooks-bridge';
import { permissions } from '@deepseek-ai/dsh-permissions';
import { toolBash } from '@deepseek-ai/dsh-tool-bash';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { generateText, stepCountIs } from 'ai';
import { afterAll, describe, expect, it } from 'vitest';
import { expectOneCallAndResultEach, loggedHost } from './fixtures/logged-host.js';
import { promptText, scriptedModel } from './fixtures/scripted-model.js';
import { resultsOf, workspace } from './fixtures/workspace.js';
import { dshTools } from './index.js';

const ws = workspace();
afterAll(() => ws.remove());
ws.file('notes.txt', 'the notes say hello\n');
ws.file('secret.txt', 'TOP-SECRET-VALUE\n');

async function governedHost(hooks: Record<string, unknown> = {}): Promise<Host> {
  const perms = permissions({
    projectDir: ws.dir,
    homeDir: ws.dir,
    settingsFiles: false,
    grantsFile: false,
    rules: { allow: ['Bash(echo *)'], deny: ['Read(./secret.txt)'] },
  });
  const host = await loggedHost({ approval: perms.approval(() => 'rejected') });
  await host.use(toolFs({ cwd: ws.dir }));
  await host.use(toolBash({ cwd: ws.dir }));
  await host.use(perms);
  await host.use(hooksBridge({ projectDir: ws.dir, homeDir: ws.dir, userSettings: false, sources: [], hooks: { claude: hooks } }));
  return host;
}

describe('Claude Code hooks on the SDK tool loop', () => {
  it('runs a PreToolUse hook script with the Claude-shaped input before the body, and its PostToolUse context reaches the next request', async () => {
    const seen = join(ws.dir, 'pre-hook.json');
    const pre = ws.script('pre.sh', `cat > '${seen}'`);
    const post = ws.script(
      'post.sh',
      `cat > /dev/null; printf '%s' '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"REMINDER-FROM-POST-HOOK"}}'`,
    );
    const host = await governedHost({
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: pre }] }],
      PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: post }] }],
    });
    const dsh = dshTools(host);
    const model = scriptedModel([{ calls: [{ id: 'h1', name: 'bash', input: { command: 'echo from-bash' } }] }, { text: 'ok' }]);
    const result = await generateText({ model, tools: dsh.tools, prepareStep: dsh.prepareStep, prompt: 'go', stopWhen: stepCountIs(4) });

    expect(JSON.parse(readFileSync(seen, 'utf8'))).toMatchObject({
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'echo from-bash' },
    });
    expect(result.steps[0]?.toolResults[0]?.output).toMatchObject({ status: 'ok' });
    const second = promptText(model, 1);
    expect(second).toContain('from-bash');
    expect(second).toContain('REMINDER-FROM-POST-HOOK');
    // The context follows the tool message it belongs to, as a user message.
    const prompt = model.doGenerateCalls[1]?.prompt ?? [];
    expect(prompt.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(resultsOf(host.events.list())).toEqual([['h1', 'ok']]);
    await dsh.settled();
    await expectOneCallAndResultEach(host, ['h1']);
    expect(logProblems(host.events.list())).toEqual([]);
  });

  it('lets a PreToolUse hook that exits 2 deny the call: the model reads the reason and the loop goes on', async () => {
    const deny = ws.script('deny.sh', `cat > /dev/null; echo 'no listing today' >&2; exit 2`);
    const host = await governedHost({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: deny }] }] });
    const dsh = dshTools(host);
    const marker = join(ws.dir, 'hook-denied-marker');
    const model = scriptedModel([
      { calls: [{ id: 'd1', name: 'bash', input: { command: `echo x > '${marker}'` } }] },
      { text: 'understood' },
    ]);
    const result = await generateText({ model, tools: dsh.tools, prompt: 'go', stopWhen: stepCountIs(4) });

    expect(result.text).toBe('understood');
    expect(result.steps[0]?.toolResults[0]?.output).toMatchObject({ status: 'denied', stage: 'pre-execute' });
    expect(promptText(model, 1)).toContain('no listing today');
    expect(() => readFileSync(marker)).toThrow();
    await dsh.settled();
    await expectOneCallAndResultEach(host, ['d1']);
    expect(logProblems(host.events.list())).toEqual([]);
  });
});

describe('permission rules on the SDK tool loop', () => {
  it('holds a deny rule: the body never runs and the model sees execution-denied with the rule', async () => {
    const host = await governedHost();
    const dsh = dshTools(host);
    const model = scriptedModel([
      { calls: [{ id: 'r1', name: 'read', input: { file_path: join(ws.dir, 'secret.txt') } }] },
      { text: 'fine' },
    ]);
    const result = await generateText({ model, tools: dsh.tools, prompt: 'go', stopWhen: stepCountIs(4) });

    expect(result.steps[0]?.toolResults[0]?.output).toMatchObject({ status: 'denied', stage: 'pre-execute' });
    const toolMessage = model.doGenerateCalls[1]?.prompt.find((m) => m.role === 'tool');
    expect(JSON.stringify(toolMessage)).toContain('execution-denied');
    expect(promptText(model, 1)).not.toContain('TOP-SECRET-VALUE');
    expect(host.events.list().some((e) => e.type === 'fs/observed')).toBe(false);
    await dsh.settled();
    await expectOneCallAndResultEach(host, ['r1']);
    expect(logProblems(host.events.list())).toEqual([]);
  });

  it('gives an invalid argument back to the model as an error naming the field, without running anything', async () => {
    const host = await governedHost();
    const dsh = dshTools(host);
    const model = scriptedModel([{ calls: [{ id: 'v1', name: 'read', input: { path: 'notes.txt' } }] }, { text: 'retrying' }]);
    const result = await generateText({ model, tools: dsh.tools, prompt: 'go', stopWhen: stepCountIs(4) });
    expect(result.steps[0]?.toolResults[0]?.output).toMatchObject({ status: 'error', error: { code: 'INVALID_ARGS' } });
    expect(promptText(model, 1)).toContain('INVALID_ARGS');
    expect(promptText(model, 1)).toContain('file_path');
    await dsh.settled();
    await expectOneCallAndResultEach(host, ['v1']);
  });

  it('answers an allowed read with the file, and logs exactly one tool/result per call', async () => {
    const host = await governedHost();
    const dsh = dshTools(host);
    const model = scriptedModel([
      { calls: [{ id: 'a1', name: 'read', input: { file_path: join(ws.dir, 'notes.txt') } }] },
      { calls: [{ id: 'a2', name: 'bash', input: { command: 'echo second' } }] },
      { text: 'done' },
    ]);
    await generateText({ model, tools: dsh.tools, prompt: 'go', stopWhen: stepCountIs(5) });
    expect(promptText(model, 1)).toContain('the notes say hello');
    expect(promptText(model, 2)).toContain('second');
    expect(resultsOf(host.events.list())).toEqual([
      ['a1', 'ok'],
      ['a2', 'ok'],
    ]);
    await dsh.settled();
    await expectOneCallAndResultEach(host, ['a1', 'a2']);
    expect(logProblems(host.events.list())).toEqual([]);
  });
});
