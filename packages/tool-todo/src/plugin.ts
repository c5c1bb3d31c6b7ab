import { definePlugin, type Plugin } from '@deepseek-ai/dsh-core';
import { parseToolTodoOptions, type ToolTodoOptions } from './options.js';
import { linkState, TodoState } from './todo-state.js';
import { todoTool } from './todo-tool.js';
import { version } from './version.js';

/** The plugin's name, as `host.plugins()` lists it. */
export const toolTodoPluginName = 'tool-todo';

/** The `toolTodo()` plugin, with the list it keeps. */
export interface TodoPlugin extends Plugin {
  /** The session's current list; also reachable as `todoState(host)`. */
  readonly state: TodoState;
}

/**
 * The todo plugin: registers `todo_write`, which replaces the session's task
 * list and logs it as a `todo/write` event with a diff against the previous
 * list. The list is seeded from `history` (an earlier run's events) and from
 * events already on the host, then follows the log. Options are checked
 * here (`INVALID_OPTIONS` naming the field). One instance per host.
 */
export function toolTodo(options: ToolTodoOptions = {}): TodoPlugin {
  const o = parseToolTodoOptions(options);
  const state = new TodoState();
  const plugin = definePlugin({
    name: o.name === 'todo_write' ? toolTodoPluginName : `${toolTodoPluginName}-${o.name}`,
    version,
    register(host) {
      state.replay(o.history);
      state.replay(host.events.list());
      host.events.subscribe((event) => state.observeLive(event));
      const tool = todoTool(o, state);
      linkState(tool.execute, state);
      host.tools.register(tool);
    },
  });
  return Object.freeze({ ...plugin, state });
}
