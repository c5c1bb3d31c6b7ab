import { type Card, defineTool, type Outcome, z } from '@deepseek-ai/dsh-core';
import { TodoErrorCode, todoError } from './errors.js';
import { todoExternal } from './external.js';
import { listTextMemo } from './list-text.js';
import type { ResolvedToolTodoOptions } from './options.js';
import { countTodos, describeDiff, diffTodos, type TodoDiff, type TodoItem, type TodoStatus, type TodoStatusChange } from './todo-list.js';
import type { TodoState } from './todo-state.js';

/** What `todo_write` returns to the model. */
export interface TodoWriteOutput {
  readonly message: string;
  readonly counts: Readonly<Record<TodoStatus, number>>;
}

const description = [
  'Write your task list for this session: send the whole list every time (it replaces the previous one).',
  'Use it for work of three or more steps, or when the user gives several tasks; skip it for a single trivial step.',
  'Each item has content (imperative: "Run the tests"), status (pending, in_progress or completed) and activeForm (present continuous: "Running the tests").',
  'Keep exactly one item in_progress while you work; mark an item completed as soon as it is done, and never when it failed or is partial.',
].join(' ');

const item = z.object({
  content: z.string().describe('What to do, in the imperative. Not blank.'),
  status: z.enum(['pending', 'in_progress', 'completed']),
  activeForm: z.string().optional().describe('What is being done, in the present continuous; shown while in progress.'),
  id: z.string().optional().describe('An optional stable id for the item.'),
});

/**
 * The `todo_write` input schema with this plugin's limits. Blank and
 * over-long texts are found by one pass over the list (one check per item
 * field costs several times more), each issue naming its field.
 */
export function todoInputSchema(o: Pick<ResolvedToolTodoOptions, 'maxItems' | 'maxContentChars'>) {
  const text = (value: string | undefined, path: (string | number)[], ctx: z.RefinementCtx): void => {
    if (value === undefined) return;
    if (!/\S/.test(value)) ctx.addIssue({ code: 'custom', message: 'must not be blank', path });
    else if (value.length > o.maxContentChars)
      ctx.addIssue({ code: 'custom', message: `must be at most ${o.maxContentChars} characters`, path });
  };
  return z.object({
    todos: z
      .array(item)
      .max(o.maxItems)
      .superRefine((list, ctx) => {
        for (const [i, t] of list.entries()) {
          text(t.content, [i, 'content'], ctx);
          text(t.activeForm, [i, 'activeForm'], ctx);
          if (t.id !== undefined && (t.id.length === 0 || t.id.length > 200))
            ctx.addIssue({ code: 'custom', message: 'must be 1 to 200 characters', path: [i, 'id'] });
        }
      })
      .describe(`The whole updated list, in order (at most ${o.maxItems} items of at most ${o.maxContentChars} characters each).`),
  });
}

function check(todos: readonly TodoItem[], maxListBytes: number): void {
  let running = 0;
  let ids: Set<string> | undefined;
  // A UTF-16 unit is at most 3 UTF-8 bytes: measure exactly only when this cheap bound is over.
  let bound = 2;
  for (const item of todos) {
    if (item.status === 'in_progress') running += 1;
    bound += 3 * (item.content.length + (item.activeForm?.length ?? 0) + (item.id?.length ?? 0)) + 80;
    if (item.id === undefined) continue;
    ids ??= new Set();
    if (ids.has(item.id))
      throw todoError(TodoErrorCode.DUPLICATE_ID, `two items have the id "${item.id}"; ids must be unique`, { id: item.id });
    ids.add(item.id);
  }
  if (running > 1) {
    const names = todos.filter((t) => t.status === 'in_progress').map((t) => t.content);
    throw todoError(
      TodoErrorCode.MULTIPLE_IN_PROGRESS,
      `${running} items are in_progress (${names.map((n) => JSON.stringify(n)).join(', ')}); keep exactly one in_progress and the others pending`,
      { inProgress: names },
    );
  }
  if (bound <= maxListBytes) return;
  const bytes = Buffer.byteLength(JSON.stringify(todos));
  if (bytes > maxListBytes) {
    throw todoError(
      TodoErrorCode.LIST_TOO_LARGE,
      `the list is ${bytes} bytes as JSON, more than the ${maxListBytes} allowed; shorten or merge items`,
      { bytes, maxListBytes },
    );
  }
}

function looksLikeItem(t: unknown): t is TodoItem {
  const item = t as Partial<TodoItem> | null;
  return (
    typeof item === 'object' &&
    item !== null &&
    typeof item.content === 'string' &&
    (item.status === 'pending' || item.status === 'in_progress' || item.status === 'completed') &&
    (item.activeForm === undefined || typeof item.activeForm === 'string')
  );
}

/** The list from unchecked arguments (the pending card comes before validation), copied only when malformed. */
function argsTodos(args: Readonly<Record<string, unknown>>): readonly TodoItem[] {
  const list: readonly unknown[] = Array.isArray(args.todos) ? args.todos : [];
  if (list.every(looksLikeItem)) return list;
  return list
    .filter((t): t is Record<string, unknown> => typeof t === 'object' && t !== null)
    .map((t) => ({
      content: typeof t.content === 'string' ? t.content : JSON.stringify(t.content ?? ''),
      status: t.status === 'in_progress' || t.status === 'completed' ? t.status : 'pending',
      ...(typeof t.activeForm === 'string' ? { activeForm: t.activeForm } : {}),
    }));
}

/** The `todo_write` tool, keeping `state` through the session log. */
export function todoTool(o: ResolvedToolTodoOptions, state: TodoState) {
  const textOf = listTextMemo();
  return defineTool({
    name: o.name,
    description,
    input: todoInputSchema(o),
    idempotent: true,
    external: todoExternal,
    async execute(args, ctx): Promise<TodoWriteOutput> {
      // Zod built these objects: only declared keys (an optional key is absent, never undefined, from JSON).
      const todos = args.todos as readonly TodoItem[];
      check(todos, o.maxListBytes);
      const diff: TodoDiff = diffTodos(state.todos, todos);
      // The state follows the log (its subscription), so the list is current once the event is in.
      await ctx.emit('todo/write', {
        todos: todos as TodoItem[],
        diff: diff as { added: TodoItem[]; removed: TodoItem[]; changed: TodoStatusChange[] },
      });
      // The message is joined into one flat string (the log keeps it); the counts are fresh per call,
      // never shared, since a post-execute tap sees the output before core freezes it.
      return {
        message: ['Todo list updated (', describeDiff(diff), '). ', textOf(todos).summary, '. Keep it current as you work.'].join(''),
        counts: countTodos(todos),
      };
    },
    present: {
      presentCall: (args): Card => {
        const text = textOf(argsTodos(args));
        return { title: 'Update todos', summary: text.summary, body: text.body, format: 'markdown' };
      },
      presentResult: (args, outcome: Outcome): Card => {
        if (outcome.status === 'ok') {
          const text = textOf(args.todos as readonly TodoItem[]);
          return { title: 'Todos', summary: text.summary, body: text.body, format: 'markdown' };
        }
        const why = outcome.status === 'error' ? outcome.error.message : outcome.reason;
        const code = outcome.status === 'error' ? outcome.error.code : outcome.code;
        return { title: 'Todos not updated', summary: `${outcome.status}: ${code}`, body: why };
      },
    },
  });
}
