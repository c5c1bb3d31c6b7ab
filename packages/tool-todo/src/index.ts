/**
 * The dsh `todo_write` tool: the model's whole task list on every call, in
 * Claude Code's TodoWrite shape, validated, logged as a `todo/write` event
 * with a diff, rebuilt from the session log on resume and readable by the
 * host with `todoState(host)`.
 *
 * @packageDocumentation
 */
export { TodoErrorCode } from './errors.js';
export { type ExternalNames, todoExternal } from './external.js';
export { type ResolvedToolTodoOptions, type ToolTodoOptions, toolTodoOptionsSchema } from './options.js';
export { type TodoPlugin, toolTodo, toolTodoPluginName } from './plugin.js';
export {
  countTodos,
  describeDiff,
  diffTodos,
  isEmptyDiff,
  renderTodos,
  type TodoDiff,
  type TodoItem,
  type TodoStatus,
  type TodoStatusChange,
} from './todo-list.js';
export { type TodoSnapshot, TodoState, todoState } from './todo-state.js';
export { type TodoWriteOutput, todoInputSchema } from './todo-tool.js';
export { version } from './version.js';
