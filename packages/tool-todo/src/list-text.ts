import { countTodos, renderTodos, type TodoItem, type TodoStatus } from './todo-list.js';

/** What the cards and the message say about one list. */
export interface ListText {
  /** "3 items: 1 completed, 1 in progress, 1 pending". */
  readonly summary: string;
  /** The list as Markdown task items ({@link renderTodos}). */
  readonly body: string;
}

/**
 * The text of a list, worked out once per call: the call's pending card, its
 * message and its completed card show the same list (as different arrays:
 * the sent arguments, then the checked ones). The last list is kept with its
 * text, which a list with the same items reuses; anything else (another
 * list, a malformed one, another call in between) is worked out afresh.
 */
export function listTextMemo(): (todos: readonly TodoItem[]) => ListText {
  let lastTodos: readonly TodoItem[] = [];
  let last: ListText | undefined;
  return (todos) => {
    if (last !== undefined && (todos === lastTodos || sameText(lastTodos, todos))) {
      lastTodos = todos;
      return last;
    }
    last = { summary: countLine(todos.length, countTodos(todos)), body: renderTodos(todos) };
    lastTodos = todos;
    return last;
  };
}

/** True when the two lists render the same, item by item. */
function sameText(a: readonly TodoItem[], b: readonly TodoItem[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (!sameItemText(a[i] as TodoItem, b[i] as TodoItem)) return false;
  return true;
}

/** The fields an item's line shows. */
function sameItemText(a: TodoItem, b: TodoItem): boolean {
  return a.content === b.content && a.status === b.status && a.activeForm === b.activeForm;
}

// Joined rather than a template: one flat string, not a tree of pieces, for the cards and the log to keep.
function countLine(length: number, c: Readonly<Record<TodoStatus, number>>): string {
  const items = length === 1 ? ' item: ' : ' items: ';
  return [length, items, c.completed, ' completed, ', c.in_progress, ' in progress, ', c.pending, ' pending'].join('');
}
