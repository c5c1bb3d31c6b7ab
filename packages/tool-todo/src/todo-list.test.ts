import { describe, expect, it } from 'vitest';
import { describeDiff, diffTodos, isEmptyDiff, renderTodos, type TodoItem } from './todo-list.js';

const item = (content: string, status: TodoItem['status'] = 'pending', extra: Partial<TodoItem> = {}): TodoItem => ({
  content,
  status,
  ...extra,
});

describe('diffTodos', () => {
  it('finds added, removed and status-changed items by content', () => {
    const diff = diffTodos([item('a'), item('b'), item('c', 'in_progress')], [item('a', 'in_progress'), item('c', 'completed'), item('d')]);
    expect(diff.added).toEqual([item('d')]);
    expect(diff.removed).toEqual([item('b')]);
    expect(diff.changed).toEqual([
      { content: 'a', from: 'pending', to: 'in_progress' },
      { content: 'c', from: 'in_progress', to: 'completed' },
    ]);
    expect(describeDiff(diff)).toBe('1 added, 1 removed, 1 started, 1 completed');
  });

  it('matches items with an id by id, so a reworded item is a change, not a removal', () => {
    const diff = diffTodos([item('old words', 'pending', { id: '1' })], [item('new words', 'completed', { id: '1' })]);
    expect(diff.added).toEqual([]);
    expect(diff.removed).toEqual([]);
    expect(diff.changed).toEqual([{ content: 'new words', from: 'pending', to: 'completed' }]);
  });

  it('matches repeated items in order and reports the extra one', () => {
    const diff = diffTodos([item('x'), item('x', 'completed')], [item('x', 'completed')]);
    expect(diff.changed).toEqual([{ content: 'x', from: 'pending', to: 'completed' }]);
    expect(diff.removed).toEqual([item('x', 'completed')]);
  });

  it('reports no change for the same list', () => {
    const list = [item('a'), item('b', 'completed')];
    expect(isEmptyDiff(diffTodos(list, list))).toBe(true);
    expect(describeDiff(diffTodos(list, list))).toBe('no change');
    expect(describeDiff(diffTodos([item('a', 'completed')], [item('a')]))).toBe('1 reopened');
  });
});

describe('renderTodos', () => {
  it('marks each status and shows the active form of the item in progress', () => {
    const text = renderTodos([
      item('Run the tests', 'completed'),
      item('Fix the bug', 'in_progress', { activeForm: 'Fixing the bug' }),
      item('Write\nthe changelog'),
    ]);
    expect(text).toBe('- [x] Run the tests\n- [~] Fixing the bug\n- [ ] Write the changelog');
    expect(renderTodos([])).toBe('(no todos)');
  });
});
