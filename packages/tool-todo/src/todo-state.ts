import type { AnySessionEvent, Host } from '@deepseek-ai/dsh-core';
import { z } from '@deepseek-ai/dsh-core';
import type { TodoItem } from './todo-list.js';

const itemSchema = z.object({
  content: z.string(),
  status: z.enum(['pending', 'in_progress', 'completed']),
  activeForm: z.string().optional(),
  id: z.string().optional(),
});
const writeData = z.object({ todos: z.array(itemSchema) });

/** The list as of one `todo/write` event. */
export interface TodoSnapshot {
  readonly todos: readonly TodoItem[];
  /** The `seq` of the event that wrote it; 0 before any write. */
  readonly seq: number;
  /** The session that wrote it (an earlier one, for a list restored from history). */
  readonly session: string | undefined;
}

/**
 * The session's current todo list, kept from `todo/write` events: the live
 * log, and on resume the events of the earlier run. Read it with
 * `todoState(host)`; a UI can `subscribe` to show each change.
 */
export class TodoState {
  #snapshot: TodoSnapshot = Object.freeze({ todos: Object.freeze([]), seq: 0, session: undefined });
  readonly #listeners = new Set<(snapshot: TodoSnapshot) => void>();

  /** The current list (frozen). */
  get todos(): readonly TodoItem[] {
    return this.#snapshot.todos;
  }

  /** The current list with where it came from. */
  get snapshot(): TodoSnapshot {
    return this.#snapshot;
  }

  /**
   * Takes the list from a `todo/write` event; other events, and events whose
   * data is not a todo list (a damaged log), are ignored. Returns whether it
   * was taken.
   */
  observe(event: unknown): boolean {
    const e = event as Partial<AnySessionEvent> | null;
    if (typeof e !== 'object' || e === null || e.type !== 'todo/write') return false;
    const parsed = writeData.safeParse(e.data);
    if (!parsed.success) return false;
    this.#take(
      e,
      parsed.data.todos.map((item) => Object.freeze(stripUndefined(item))),
    );
    return true;
  }

  /**
   * Takes the list from a live event of this host's log: core checked its
   * data against the `todo/write` schema before any subscriber saw it, so it
   * is used as it is (core does not freeze event data; the list is the
   * call's parsed args, which nothing here changes).
   */
  observeLive(event: AnySessionEvent): void {
    if (event.type === 'todo/write') this.#take(event, event.data.todos as readonly TodoItem[]);
  }

  #take(e: Partial<AnySessionEvent>, todos: readonly TodoItem[]): void {
    this.#snapshot = Object.freeze({
      todos: Object.isFrozen(todos) ? todos : Object.freeze(todos),
      seq: typeof e.seq === 'number' ? e.seq : 0,
      session: typeof e.session === 'string' ? e.session : undefined,
    });
    for (const listener of this.#listeners) {
      try {
        listener(this.#snapshot);
      } catch {
        // A UI listener's failure must not break the log that feeds it.
      }
    }
  }

  /** Replays events in order; the last `todo/write` wins. */
  replay(events: readonly unknown[]): void {
    for (const event of events) this.observe(event);
  }

  /** Calls `listener` with every new list; returns the way to stop. */
  subscribe(listener: (snapshot: TodoSnapshot) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

function stripUndefined(item: z.infer<typeof itemSchema>): TodoItem {
  return {
    content: item.content,
    status: item.status,
    ...(item.activeForm === undefined ? {} : { activeForm: item.activeForm }),
    ...(item.id === undefined ? {} : { id: item.id }),
  };
}

// Keyed by the registered body: the registry copies a definition but keeps its functions.
const states = new WeakMap<object, TodoState>();

/** Links a tool body to its state, for `todoState`. */
export function linkState(execute: object, state: TodoState): void {
  states.set(execute, state);
}

/**
 * The todo list of the tool-todo plugin registered on `host` (under
 * `toolName`, `todo_write` by default), or `undefined` when there is none.
 */
export function todoState(host: Pick<Host, 'tools'>, toolName = 'todo_write'): TodoState | undefined {
  const tool = host.tools.get(toolName);
  return tool === undefined ? undefined : states.get(tool.execute);
}
