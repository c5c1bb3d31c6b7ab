/** Where an item stands: Claude Code's three statuses. */
export type TodoStatus = 'pending' | 'in_progress' | 'completed';

/** One item of the model's task list, in Claude Code's TodoWrite shape. */
export interface TodoItem {
  /** What to do, in the imperative ("Run the tests"). */
  readonly content: string;
  readonly status: TodoStatus;
  /** What is being done, shown while the item is in progress ("Running the tests"). */
  readonly activeForm?: string;
  /** An id the model chose; items are matched by it, else by `content`. */
  readonly id?: string;
}

/** An item whose status changed between two lists. */
export interface TodoStatusChange {
  readonly content: string;
  readonly from: TodoStatus;
  readonly to: TodoStatus;
}

/** What changed from one list to the next. */
export interface TodoDiff {
  readonly added: readonly TodoItem[];
  readonly removed: readonly TodoItem[];
  readonly changed: readonly TodoStatusChange[];
}

/**
 * The difference between two lists. Items are matched by `id` when they
 * have one, else by `content`; repeated items are matched in order. A
 * reworded item without an id counts as removed and added.
 */
export function diffTodos(previous: readonly TodoItem[], next: readonly TodoItem[]): TodoDiff {
  const same = sameItemsInOrder(previous, next);
  if (same !== undefined) return same;
  // Two maps rather than prefixed keys: building a key string per item costs more than the rest.
  const byContent = new Map<string, TodoItem[]>();
  const byId = new Map<string, TodoItem[]>();
  for (const item of previous) {
    const map = item.id === undefined ? byContent : byId;
    const key = item.id ?? item.content;
    const queue = map.get(key);
    if (queue === undefined) map.set(key, [item]);
    else queue.push(item);
  }
  const matched = new Set<TodoItem>();
  const added: TodoItem[] = [];
  const changed: TodoStatusChange[] = [];
  for (const item of next) {
    const before = (item.id === undefined ? byContent.get(item.content) : byId.get(item.id))?.shift();
    if (before === undefined) {
      added.push(item);
      continue;
    }
    matched.add(before);
    if (before.status !== item.status) changed.push({ content: item.content, from: before.status, to: item.status });
  }
  const removed = matched.size === previous.length ? [] : previous.filter((item) => !matched.has(item));
  return { added, removed, changed };
}

/** The common case, cheaply: the same items in the same order, some with a new status. */
function sameItemsInOrder(previous: readonly TodoItem[], next: readonly TodoItem[]): TodoDiff | undefined {
  if (previous.length !== next.length) return undefined;
  let moved = 0;
  for (let i = 0; i < next.length; i += 1) {
    const a = previous[i] as TodoItem;
    const b = next[i] as TodoItem;
    if (a.id !== b.id || (a.id === undefined && a.content !== b.content)) return undefined;
    if (a.status !== b.status) moved += 1;
  }
  // Sized once: the session log keeps every diff, and a grown array keeps its spare room.
  const changed = new Array<TodoStatusChange>(moved);
  for (let i = 0, j = 0; j < moved; i += 1) {
    const a = previous[i] as TodoItem;
    const b = next[i] as TodoItem;
    if (a.status !== b.status) changed[j++] = { content: b.content, from: a.status, to: b.status };
  }
  return { added: [], removed: [], changed };
}

/** True when nothing changed. */
export function isEmptyDiff(diff: TodoDiff): boolean {
  return diff.added.length === 0 && diff.removed.length === 0 && diff.changed.length === 0;
}

/** How many items have each status. */
export function countTodos(todos: readonly TodoItem[]): Readonly<Record<TodoStatus, number>> {
  let pending = 0;
  let inProgress = 0;
  let completed = 0;
  for (const item of todos) {
    if (item.status === 'completed') completed += 1;
    else if (item.status === 'in_progress') inProgress += 1;
    else pending += 1;
  }
  return { pending, in_progress: inProgress, completed };
}

const marks: Readonly<Record<TodoStatus, string>> = { pending: '[ ]', in_progress: '[~]', completed: '[x]' };

/**
 * The list as Markdown task items: `[x]` done, `[~]` in progress (shown in
 * its `activeForm`), `[ ]` pending. An empty list is "(no todos)".
 */
export function renderTodos(todos: readonly TodoItem[]): string {
  if (todos.length === 0) return '(no todos)';
  // Joined rather than appended: one flat string instead of a tree of pieces that the cards keep alive.
  const lines = new Array<string>(todos.length);
  for (let i = 0; i < todos.length; i += 1) {
    const item = todos[i] as TodoItem;
    const text = item.status === 'in_progress' && item.activeForm !== undefined ? item.activeForm : item.content;
    // One line per item: a newline inside an item would break the list.
    lines[i] = `- ${marks[item.status]} ${text.includes('\n') ? text.replace(/\s*\n\s*/g, ' ') : text}`;
  }
  return lines.join('\n');
}

/** A one-line summary of a diff ("1 added, 2 completed"), or "no change". */
export function describeDiff(diff: TodoDiff): string {
  const parts: string[] = [];
  if (diff.added.length > 0) parts.push(`${diff.added.length} added`);
  if (diff.removed.length > 0) parts.push(`${diff.removed.length} removed`);
  let started = 0;
  let done = 0;
  for (const change of diff.changed) {
    if (change.to === 'in_progress') started += 1;
    else if (change.to === 'completed') done += 1;
  }
  const reopened = diff.changed.length - started - done;
  if (started > 0) parts.push(`${started} started`);
  if (done > 0) parts.push(`${done} completed`);
  if (reopened > 0) parts.push(`${reopened} reopened`);
  return parts.length === 0 ? 'no change' : parts.join(', ');
}
