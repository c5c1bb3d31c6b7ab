import { ToolError } from '@deepseek-ai/dsh-core';

/**
 * Stable error codes of tool-todo: the `error.code` of a failed `todo_write`
 * outcome (shape problems such as an empty `content` are core's `INVALID_ARGS`).
 */
export const TodoErrorCode = {
  /** More than one item is `in_progress`: the model works on one thing at a time. */
  MULTIPLE_IN_PROGRESS: 'TODO_MULTIPLE_IN_PROGRESS',
  /** Two items share an `id`. */
  DUPLICATE_ID: 'TODO_DUPLICATE_ID',
  /** The list, as JSON, is larger than `maxListBytes`. */
  LIST_TOO_LARGE: 'TODO_LIST_TOO_LARGE',
} as const;

/** One of tool-todo's stable error codes. */
export type TodoErrorCode = (typeof TodoErrorCode)[keyof typeof TodoErrorCode];

/** The `ToolError` the body throws for a list it refuses. */
export function todoError(code: TodoErrorCode, message: string, data?: Readonly<Record<string, unknown>>): ToolError {
  return new ToolError(code, message, data === undefined ? undefined : { data });
}
