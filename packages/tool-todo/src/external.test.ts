import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { hooksBridge } from '@deepseek-ai/dsh-hooks-bridge';
import { permissions } from '@deepseek-ai/dsh-permissions';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { todoExternal, toolTodo } from './index.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dsh-todo-ext-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const ours = { todos: [{ content: 'Run the tests', status: 'in_progress' as const }] };

describe('external names', () => {
  it('maps todo_write to TodoWrite, write_todos and update_plan and back', () => {
    expect(todoExternal.claude?.toExternal(ours)).toEqual({
      todos: [{ content: 'Run the tests', status: 'in_progress', activeForm: 'Run the tests' }],
    });
    expect(todoExternal.claude?.fromExternal({ todos: [{ content: 'a', status: 'pending', activeForm: 'Doing a' }] })).toEqual({
      todos: [{ content: 'a', status: 'pending', activeForm: 'Doing a' }],
    });
    expect(todoExternal.gemini?.toExternal(ours)).toEqual({ todos: [{ description: 'Run the tests', status: 'in_progress' }] });
    expect(todoExternal.gemini?.fromExternal({ todos: [{ description: 'b', status: 'completed' }] })).toEqual({
      todos: [{ content: 'b', status: 'completed' }],
    });
    expect(todoExternal.codex?.toExternal(ours)).toEqual({ plan: [{ step: 'Run the tests', status: 'in_progress' }] });
    expect(todoExternal.codex?.fromExternal({ explanation: 'why', plan: [{ step: 'c', status: 'pending' }] })).toEqual({
      todos: [{ content: 'c', status: 'pending' }],
    });
    expect(todoExternal.claude?.toExternal({ todos: 'not a list' })).toEqual({ todos: [] });
  });

  it('is found by its Claude Code name, and a permission rule on TodoWrite applies to it', async () => {
    const perms = permissions({ projectDir: dir, homeDir: dir, settingsFiles: false, grantsFile: false, rules: { deny: ['TodoWrite'] } });
    const t = await createTestHost({ plugins: [toolTodo(), perms] });
    expect(t.host.tools.findExternal('claude', 'TodoWrite')?.name).toBe('todo_write');
    expect(t.host.tools.findExternal('gemini', 'write_todos')?.name).toBe('todo_write');
    expect(await t.call('todo_write', ours)).toMatchObject({ status: 'denied', stage: 'pre-execute' });
    expect(t.host.events.list().some((e) => e.type === 'todo/write')).toBe(false);
  });

  it('shows a Claude Code hook the TodoWrite input, and the hook can refuse it', async () => {
    const seen = join(dir, 'seen.json');
    const script = join(dir, 'hook.mjs');
    writeFileSync(
      script,
      [
        "import { readFileSync, writeFileSync } from 'node:fs';",
        "const input = JSON.parse(readFileSync(0, 'utf8'));",
        `writeFileSync(${JSON.stringify(seen)}, JSON.stringify(input));`,
        "if (input.tool_input.todos.some((t) => /deploy/i.test(t.content))) { process.stderr.write('no deploying from a todo list'); process.exit(2); }",
      ].join('\n'),
    );
    chmodSync(script, 0o755);
    const hook = { type: 'command', command: `${JSON.stringify(process.execPath)} ${JSON.stringify(script)}` };
    const t = await createTestHost({
      plugins: [
        toolTodo(),
        hooksBridge({ projectDir: dir, homeDir: dir, hooks: { claude: { PreToolUse: [{ matcher: 'TodoWrite', hooks: [hook] }] } } }),
      ],
    });
    expect(await t.call('todo_write', ours)).toMatchObject({ status: 'ok' });
    const input = JSON.parse(readFileSync(seen, 'utf8')) as { tool_name: string; tool_input: unknown };
    expect(input.tool_name).toBe('TodoWrite');
    expect(input.tool_input).toEqual({ todos: [{ content: 'Run the tests', status: 'in_progress', activeForm: 'Run the tests' }] });
    const refused = await t.call('todo_write', { todos: [{ content: 'Deploy to production', status: 'pending' }] });
    expect(refused).toMatchObject({ status: 'denied' });
    expect(refused.status === 'denied' && refused.reason).toContain('no deploying');
  });
});
