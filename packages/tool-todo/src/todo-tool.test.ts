import { ErrorCode } from '@deepseek-ai/dsh-core';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { describe, expect, it } from 'vitest';
import { TodoErrorCode, todoState, toolTodo } from './index.js';

const plan = [
  { content: 'Read the issue', status: 'completed', activeForm: 'Reading the issue' },
  { content: 'Fix the bug', status: 'in_progress', activeForm: 'Fixing the bug' },
  { content: 'Run the tests', status: 'pending', activeForm: 'Running the tests' },
];

function todoEvents(events: readonly { type: string; data: unknown }[]) {
  return events.filter((e) => e.type === 'todo/write').map((e) => e.data);
}

describe('todo_write', () => {
  it('replaces the list, logs it with a diff, and renders it on both cards', async () => {
    const plugin = toolTodo();
    const t = await createTestHost({ plugins: [plugin] });
    const outcome = await t.call('todo_write', { todos: plan });
    expect(outcome).toMatchObject({ status: 'ok', output: { counts: { completed: 1, in_progress: 1, pending: 1 } } });
    expect(todoEvents(t.host.events.list())).toEqual([{ todos: plan, diff: { added: plan, removed: [], changed: [] } }]);
    expect(todoState(t.host)?.todos).toEqual(plan);
    expect(plugin.state.todos).toEqual(plan);
    const [pending, completed] = t.ui.cards;
    const body = '- [x] Read the issue\n- [~] Fixing the bug\n- [ ] Run the tests';
    expect(pending).toMatchObject({ kind: 'pending', card: { title: 'Update todos', body, format: 'markdown' } });
    expect(completed).toMatchObject({
      kind: 'completed',
      card: { title: 'Todos', body, summary: '3 items: 1 completed, 1 in progress, 1 pending' },
    });
  });

  it('is idempotent: the same call again leaves the same list and an empty diff, so a resume may re-run it', async () => {
    const t = await createTestHost({ plugins: [toolTodo()] });
    expect(t.host.tools.get('todo_write')?.idempotent).toBe(true);
    await t.call('todo_write', { todos: plan });
    await t.call('todo_write', { todos: plan });
    expect(todoState(t.host)?.todos).toEqual(plan);
    expect(todoEvents(t.host.events.list())[1]).toEqual({ todos: plan, diff: { added: [], removed: [], changed: [] } });
  });

  it('diffs each list against the previous one', async () => {
    const t = await createTestHost({ plugins: [toolTodo()] });
    await t.call('todo_write', { todos: plan });
    const next = [
      { content: 'Read the issue', status: 'completed' },
      { content: 'Fix the bug', status: 'completed' },
      { content: 'Run the tests', status: 'in_progress', activeForm: 'Running the tests' },
      { content: 'Open a pull request', status: 'pending' },
    ];
    const outcome = await t.call('todo_write', JSON.stringify({ todos: next }));
    expect(outcome).toMatchObject({ status: 'ok' });
    expect(outcome.status === 'ok' && (outcome.output as { message: string }).message).toContain('1 added, 1 started, 1 completed');
    expect(todoEvents(t.host.events.list())[1]).toEqual({
      todos: next,
      diff: {
        added: [{ content: 'Open a pull request', status: 'pending' }],
        removed: [],
        changed: [
          { content: 'Fix the bug', from: 'in_progress', to: 'completed' },
          { content: 'Run the tests', from: 'pending', to: 'in_progress' },
        ],
      },
    });
    const writes = t.host.events.list().filter((e) => e.type === 'todo/write');
    expect(todoState(t.host)?.snapshot.seq).toBe(writes[1]?.seq);
  });

  it('refuses two items in progress, logs nothing and keeps the list', async () => {
    const t = await createTestHost({ plugins: [toolTodo()] });
    await t.call('todo_write', { todos: plan });
    const outcome = await t.call('todo_write', {
      todos: [
        { content: 'a', status: 'in_progress' },
        { content: 'b', status: 'in_progress' },
      ],
    });
    expect(outcome).toMatchObject({
      status: 'error',
      error: { code: TodoErrorCode.MULTIPLE_IN_PROGRESS, data: { inProgress: ['a', 'b'] } },
    });
    expect(todoEvents(t.host.events.list())).toHaveLength(1);
    expect(todoState(t.host)?.todos).toEqual(plan);
    expect(t.ui.cards.at(-1)).toMatchObject({
      card: { title: 'Todos not updated', summary: `error: ${TodoErrorCode.MULTIPLE_IN_PROGRESS}` },
    });
  });

  it('refuses empty content, a bad status and too many items, naming the field', async () => {
    const t = await createTestHost({ plugins: [toolTodo({ maxItems: 2 })] });
    const blank = await t.call('todo_write', { todos: [{ content: '   ', status: 'pending' }] });
    expect(blank).toMatchObject({ status: 'error', error: { code: ErrorCode.INVALID_ARGS } });
    expect(blank.status === 'error' && blank.error.message).toContain('todos.0.content');
    const status = await t.call('todo_write', { todos: [{ content: 'x', status: 'cancelled' }] });
    expect(status.status === 'error' && status.error.message).toContain('todos.0.status');
    const many = await t.call('todo_write', { todos: [1, 2, 3].map((n) => ({ content: `t${n}`, status: 'pending' })) });
    expect(many).toMatchObject({ status: 'error', error: { code: ErrorCode.INVALID_ARGS } });
    expect(todoEvents(t.host.events.list())).toEqual([]);
  });

  it('refuses a list over the byte cap and duplicate ids', async () => {
    const t = await createTestHost({ plugins: [toolTodo({ maxListBytes: 200 })] });
    const big = await t.call('todo_write', { todos: [1, 2, 3, 4].map((n) => ({ content: `item ${n} `.repeat(8), status: 'pending' })) });
    expect(big).toMatchObject({ status: 'error', error: { code: TodoErrorCode.LIST_TOO_LARGE } });
    const dup = await t.call('todo_write', {
      todos: [
        { id: '1', content: 'a', status: 'pending' },
        { id: '1', content: 'b', status: 'pending' },
      ],
    });
    expect(dup).toMatchObject({ status: 'error', error: { code: TodoErrorCode.DUPLICATE_ID } });
  });

  it('accepts an empty list, which clears the todos', async () => {
    const t = await createTestHost({ plugins: [toolTodo()] });
    await t.call('todo_write', { todos: plan });
    expect(await t.call('todo_write', { todos: [] })).toMatchObject({ status: 'ok' });
    expect(todoState(t.host)?.todos).toEqual([]);
    expect(todoEvents(t.host.events.list())[1]).toMatchObject({ diff: { removed: plan } });
  });

  it('tells subscribers of every new list, and survives a throwing one', async () => {
    const plugin = toolTodo();
    const t = await createTestHost({ plugins: [plugin] });
    const seen: number[] = [];
    plugin.state.subscribe(() => {
      throw new Error('a broken UI');
    });
    const stop = plugin.state.subscribe((s) => seen.push(s.todos.length));
    await t.call('todo_write', { todos: plan });
    stop();
    await t.call('todo_write', { todos: [] });
    expect(seen).toEqual([3]);
  });

  it('rejects bad options naming the field, and has no state on a host without the plugin', async () => {
    expect(() => toolTodo({ maxItems: 0 })).toThrow(/toolTodo: maxItems:/);
    expect(() => toolTodo({ nope: 1 } as never)).toThrow(/INVALID_OPTIONS|toolTodo/);
    const t = await createTestHost();
    expect(todoState(t.host)).toBeUndefined();
  });

  it('tells the model its limits in the JSON Schema', async () => {
    const t = await createTestHost({ plugins: [toolTodo({ maxItems: 7 })] });
    const schema = t.host.tools.schemas().find((s) => s.name === 'todo_write')?.inputSchema as {
      properties: { todos: { maxItems: number } };
    };
    expect(schema.properties.todos.maxItems).toBe(7);
    expect(JSON.stringify(schema)).toContain('activeForm');
  });

  it('registers under another name when asked', async () => {
    const t = await createTestHost({ plugins: [toolTodo({ name: 'plan' })] });
    expect(await t.call('plan', { todos: plan })).toMatchObject({ status: 'ok' });
    expect(todoState(t.host, 'plan')?.todos).toHaveLength(3);
    expect(t.host.plugins().map((p) => p.name)).toContain('tool-todo-plan');
  });
});
