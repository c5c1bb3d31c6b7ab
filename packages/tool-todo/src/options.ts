import { DshError, ErrorCode, z } from '@deepseek-ai/dsh-core';

const positive = z.number().int().positive();

/** The zod schema of `toolTodo` options. */
export const toolTodoOptionsSchema = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .optional(),
  history: z.array(z.unknown()).optional(),
  maxItems: positive.optional(),
  maxContentChars: positive.optional(),
  maxListBytes: positive.optional(),
});

/** Options of `toolTodo`. Every one is optional. */
export interface ToolTodoOptions {
  /** The tool's name: `todo_write` by default. */
  readonly name?: string;
  /**
   * Events of an earlier run of this session (`(await loadSessionLog(path)).events`):
   * the last `todo/write` among them is the list the session resumes with.
   */
  readonly history?: readonly unknown[];
  /** Items one list may hold: 100. */
  readonly maxItems?: number;
  /** Characters of one `content` or `activeForm`: 2,000. */
  readonly maxContentChars?: number;
  /** Bytes of the whole list as JSON: 64 KiB. */
  readonly maxListBytes?: number;
}

/** Options with every default filled in. */
export interface ResolvedToolTodoOptions {
  readonly name: string;
  readonly history: readonly unknown[];
  readonly maxItems: number;
  readonly maxContentChars: number;
  readonly maxListBytes: number;
}

/** Validates options, naming the field on failure (`INVALID_OPTIONS`), and fills in defaults. */
export function parseToolTodoOptions(options: ToolTodoOptions): ResolvedToolTodoOptions {
  const parsed = toolTodoOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.map(String).join('.') : 'options';
    throw new DshError(ErrorCode.INVALID_OPTIONS, `toolTodo: ${where}: ${issue?.message ?? 'invalid'}`);
  }
  const o = parsed.data;
  return {
    name: o.name ?? 'todo_write',
    history: o.history ?? [],
    maxItems: o.maxItems ?? 100,
    maxContentChars: o.maxContentChars ?? 2000,
    maxListBytes: o.maxListBytes ?? 64 * 1024,
  };
}
