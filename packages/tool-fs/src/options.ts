import { DshError, ErrorCode, z } from '@deepseek-ai/dsh-core';

const positive = z.number().int().positive();

/** The zod schema of `toolFs` options. */
export const toolFsOptionsSchema = z.strictObject({
  roots: z.array(z.string().min(1)).min(1).optional(),
  readOnlyRoots: z.array(z.string().min(1)).optional(),
  cwd: z.string().min(1).optional(),
  readBeforeEdit: z.boolean().optional(),
  history: z.array(z.unknown()).optional(),
  search: z.enum(['auto', 'ripgrep', 'builtin']).optional(),
  ripgrepPath: z.string().min(1).optional(),
  maxReadLines: positive.optional(),
  maxLineLength: positive.optional(),
  maxReadChars: positive.optional(),
  maxEditBytes: positive.optional(),
  maxResults: positive.optional(),
  allowHardLinks: z.array(z.string().min(1)).optional(),
  fsync: z.boolean().optional(),
});

/** Options of `toolFs`. Every one is optional. */
export interface ToolFsOptions {
  /** Directories every path must resolve inside (absolute, or relative to `cwd`): `[cwd]` by default. An explicit override of the session's folder. */
  readonly roots?: readonly string[];
  /** Directories that may be read but never changed; they count as roots too. */
  readonly readOnlyRoots?: readonly string[];
  /**
   * Where relative paths resolve: the host's working directory (`host.anchors.cwd`) by default.
   * An explicit override: every policy still sees the path this gives, because the tools resolve it before any policy runs.
   */
  readonly cwd?: string;
  /** Register the read-before-edit gate handler: `true` by default. */
  readonly readBeforeEdit?: boolean;
  /**
   * Events of an earlier run of this session (`(await loadSessionLog(path)).events`):
   * their `fs/observed` events seed the read-before-edit state.
   */
  readonly history?: readonly unknown[];
  /** `auto` (ripgrep when installed, else built-in), `ripgrep` (required) or `builtin`: `auto` by default. */
  readonly search?: 'auto' | 'ripgrep' | 'builtin';
  /** The ripgrep executable: `rg` on `PATH` by default. */
  readonly ripgrepPath?: string;
  /** Lines `read` returns when no `limit` is given: 2,000. */
  readonly maxReadLines?: number;
  /** Characters of one line shown before it is cut with a marker: 2,000. */
  readonly maxLineLength?: number;
  /** Characters `read` returns at most, whatever the limit: 400,000. */
  readonly maxReadChars?: number;
  /** Largest file `edit`, `multi_edit` and `grep` load, and `read` hashes whole: 16 MiB. */
  readonly maxEditBytes?: number;
  /** Entries `list`, `glob` and `grep` return at most unless asked for fewer: 1,000. */
  readonly maxResults?: number;
  /**
   * Files, or directories holding files, that may be read and changed although
   * they have more than one hard link (absolute, or relative to `cwd`): none by
   * default, because a hard link can make a file outside the roots look like one
   * inside. A pnpm `node_modules` is one place to list.
   */
  readonly allowHardLinks?: readonly string[];
  /**
   * Flush each written file to disk before renaming it into place, so a crash
   * leaves the old content or the new, never an empty file: `true` by default.
   * `false` saves one disk flush per write or edit (milliseconds on most disks).
   */
  readonly fsync?: boolean;
}

/** Options with every default filled in but the ones the host gives (`cwd`, `roots`). */
export interface ResolvedOptions {
  /** `undefined`: `[cwd]`, once the host's working directory is known. */
  readonly roots: readonly string[] | undefined;
  readonly readOnlyRoots: readonly string[];
  /** `undefined`: the host's working directory, taken when the plugin is registered. */
  readonly cwd: string | undefined;
  readonly readBeforeEdit: boolean;
  readonly history: readonly unknown[];
  readonly search: 'auto' | 'ripgrep' | 'builtin';
  readonly ripgrepPath: string;
  readonly maxReadLines: number;
  readonly maxLineLength: number;
  readonly maxReadChars: number;
  readonly maxEditBytes: number;
  readonly maxResults: number;
  readonly allowHardLinks: readonly string[];
  readonly fsync: boolean;
}

/** Validates options, naming the field on failure (`INVALID_OPTIONS`), and fills in defaults. */
export function parseToolFsOptions(options: ToolFsOptions): ResolvedOptions {
  const parsed = toolFsOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.map(String).join('.') : 'options';
    throw new DshError(ErrorCode.INVALID_OPTIONS, `toolFs: ${where}: ${issue?.message ?? 'invalid'}`);
  }
  const o = parsed.data;
  return {
    roots: o.roots,
    readOnlyRoots: o.readOnlyRoots ?? [],
    cwd: o.cwd,
    readBeforeEdit: o.readBeforeEdit ?? true,
    history: o.history ?? [],
    search: o.search ?? 'auto',
    ripgrepPath: o.ripgrepPath ?? 'rg',
    maxReadLines: o.maxReadLines ?? 2000,
    maxLineLength: o.maxLineLength ?? 2000,
    maxReadChars: o.maxReadChars ?? 400_000,
    maxEditBytes: o.maxEditBytes ?? 16 * 1024 * 1024,
    maxResults: o.maxResults ?? 1000,
    allowHardLinks: o.allowHardLinks ?? [],
    fsync: o.fsync ?? true,
  };
}
