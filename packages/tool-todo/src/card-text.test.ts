import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { describe, expect, it } from 'vitest';
import { countTodos, renderTodos, type TodoItem, toolTodo } from './index.js';

// The cards' text is kept from one card to the next: each call must still show its own list.
const lists: readonly (readonly TodoItem[])[] = [
  [
    { content: 'Read the issue', status: 'in_progress', activeForm: 'Reading the issue' },
    { content: 'Fix the bug', status: 'pending', activeForm: 'Fixing the bug' },
    { content: 'Run the tests', status: 'pending' },
  ],
  // One status moved on.
  [
    { content: 'Read the issue', status: 'completed', activeForm: 'Reading the issue' },
    { content: 'Fix the bug', status: 'in_progress', activeForm: 'Fixing the bug' },
    { content: 'Run the tests', status: 'pending' },
  ],
  // The same list again, then only an activeForm changed (it shows while in progress).
  [
    { content: 'Read the issue', status: 'completed', activeForm: 'Reading the issue' },
    { content: 'Fix the bug', status: 'in_progress', activeForm: 'Fixing the bug' },
    { content: 'Run the tests', status: 'pending' },
  ],
  [
    { content: 'Read the issue', status: 'completed', activeForm: 'Reading the issue' },
    { content: 'Fix the bug', status: 'in_progress', activeForm: 'Fixing the parser' },
    { content: 'Run the tests', status: 'pending' },
  ],
  // Reordered, one item reworded across lines, one dropped, one added.
  [
    { content: 'Run the tests', status: 'pending' },
    { content: 'Fix the bug\nin the parser', status: 'completed' },
    { content: 'Open a pull request', status: 'pending', id: 'pr' },
  ],
  [{ content: 'Run the tests', status: 'in_progress' }],
  [],
  [{ content: 'Run the tests', status: 'completed' }],
];

const countLine = (todos: readonly TodoItem[]) => {
  const c = countTodos(todos);
  return `${todos.length} item${todos.length === 1 ? '' : 's'}: ${c.completed} completed, ${c.in_progress} in progress, ${c.pending} pending`;
};

describe('todo_write cards over successive calls', () => {
  it("shows each call's own list on both cards and in the message", async () => {
    const t = await createTestHost({ plugins: [toolTodo()] });
    for (const todos of lists) {
      t.ui.cards.length = 0;
      const outcome = await t.call('todo_write', { todos });
      expect(outcome.status).toBe('ok');
      const output = (outcome.status === 'ok' ? outcome.output : undefined) as { message: string; counts: unknown };
      expect(output.counts).toEqual(countTodos(todos));
      expect(output.message).toContain(`). ${countLine(todos)}. Keep it current as you work.`);
      const [pending, completed] = t.ui.cards;
      expect(pending?.card).toEqual({ title: 'Update todos', summary: countLine(todos), body: renderTodos(todos), format: 'markdown' });
      expect(completed?.card).toEqual({ title: 'Todos', summary: countLine(todos), body: renderTodos(todos), format: 'markdown' });
    }
  });

  it('shows a refused list on its pending card, and the next list on its own', async () => {
    const t = await createTestHost({ plugins: [toolTodo()] });
    const refused = [
      { content: 'a', status: 'in_progress' },
      { content: 'b', status: 'in_progress' },
    ] as const;
    expect((await t.call('todo_write', { todos: refused })).status).toBe('error');
    expect(t.ui.cards[0]?.card.body).toBe(renderTodos(refused));
    t.ui.cards.length = 0;
    const next = [
      { content: 'a', status: 'in_progress' },
      { content: 'b', status: 'pending' },
    ] as const;
    expect((await t.call('todo_write', { todos: next })).status).toBe('ok');
    expect(t.ui.cards.map((c) => c.card.body)).toEqual([renderTodos(next), renderTodos(next)]);
  });
});
