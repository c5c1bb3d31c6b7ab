import type { Dialect, ExternalName } from '@deepseek-ai/dsh-core';

/**
 * How the file tools appear in other agents' vocabularies: Claude Code
 * (`Read`, `Edit` with `file_path`, …), Gemini CLI (`read_file`, `replace`,
 * …) and Copilot CLI (`view`, `create`, `edit` with `path`, …). Written
 * once here and read by hooks-bridge, permissions and replay through
 * `tool.external`. `fromExternal` accepts the aliases each dialect has used.
 */
export type ExternalNames = Readonly<Partial<Record<Dialect, ExternalName>>>;

type Input = Readonly<Record<string, unknown>>;

/** Copies the keys whose value is not `undefined`. */
function defined(entries: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entries)) if (value !== undefined) out[key] = value;
  return out;
}

function first(input: Input, ...keys: string[]): unknown {
  for (const key of keys) if (input[key] !== undefined) return input[key];
  return undefined;
}

function asNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

const same = (names: readonly string[]) => (input: Input) => defined(Object.fromEntries(names.map((n) => [n, input[n]])));

/** `read` as `Read`, `read_file` (0-based offset) and `view` (with `view_range`). */
export const readExternal: ExternalNames = {
  claude: { name: 'Read', toExternal: same(['file_path', 'offset', 'limit']), fromExternal: same(['file_path', 'offset', 'limit']) },
  gemini: {
    name: 'read_file',
    toExternal: (a) => {
      const offset = asNumber(a.offset);
      return defined({ file_path: a.file_path, offset: offset === undefined ? undefined : offset - 1, limit: a.limit });
    },
    fromExternal: (i) => {
      const offset = asNumber(i.offset);
      return defined({
        file_path: first(i, 'file_path', 'absolute_path', 'path'),
        offset: offset === undefined ? undefined : offset + 1,
        limit: i.limit,
      });
    },
  },
  copilot: {
    name: 'view',
    toExternal: (a) => {
      const offset = asNumber(a.offset);
      const limit = asNumber(a.limit);
      const range =
        offset === undefined && limit === undefined ? undefined : [offset ?? 1, limit === undefined ? -1 : (offset ?? 1) + limit - 1];
      return defined({ path: a.file_path, view_range: range });
    },
    fromExternal: (i) => {
      const range = Array.isArray(i.view_range) ? i.view_range : undefined;
      const start = asNumber(range?.[0]);
      const end = asNumber(range?.[1]);
      return defined({
        file_path: first(i, 'path', 'file_path'),
        offset: start,
        limit: start !== undefined && end !== undefined && end >= start ? end - start + 1 : undefined,
      });
    },
  },
};

/** `write` as `Write`, `write_file` and `create` (`file_text`). */
export const writeExternal: ExternalNames = {
  claude: { name: 'Write', toExternal: same(['file_path', 'content']), fromExternal: same(['file_path', 'content']) },
  gemini: {
    name: 'write_file',
    toExternal: same(['file_path', 'content']),
    fromExternal: (i) => defined({ file_path: first(i, 'file_path', 'absolute_path', 'path'), content: i.content }),
  },
  copilot: {
    name: 'create',
    toExternal: (a) => defined({ path: a.file_path, file_text: a.content }),
    fromExternal: (i) => defined({ file_path: first(i, 'path', 'file_path'), content: first(i, 'file_text', 'content') }),
  },
};

/** `edit` as `Edit`, `replace` (`expected_replacements` > 1 means replace all) and Copilot's `edit` (`old_str`). */
export const editExternal: ExternalNames = {
  claude: {
    name: 'Edit',
    toExternal: same(['file_path', 'old_string', 'new_string', 'replace_all']),
    fromExternal: same(['file_path', 'old_string', 'new_string', 'replace_all']),
  },
  gemini: {
    name: 'replace',
    toExternal: same(['file_path', 'old_string', 'new_string']),
    fromExternal: (i) => {
      const expected = asNumber(i.expected_replacements);
      return defined({
        file_path: first(i, 'file_path', 'absolute_path', 'path'),
        old_string: i.old_string,
        new_string: i.new_string,
        replace_all: expected !== undefined && expected > 1 ? true : undefined,
      });
    },
  },
  copilot: {
    name: 'edit',
    toExternal: (a) => defined({ path: a.file_path, old_str: a.old_string, new_str: a.new_string }),
    fromExternal: (i) =>
      defined({
        file_path: first(i, 'path', 'file_path'),
        old_string: first(i, 'old_str', 'old_string'),
        new_string: first(i, 'new_str', 'new_string'),
      }),
  },
};

/** `multi_edit` as Claude Code's `MultiEdit` (no Gemini or Copilot counterpart). */
export const multiEditExternal: ExternalNames = {
  claude: { name: 'MultiEdit', toExternal: same(['file_path', 'edits']), fromExternal: same(['file_path', 'edits']) },
};

/** `list` as `LS` and `list_directory`. */
export const listExternal: ExternalNames = {
  claude: { name: 'LS', toExternal: same(['path', 'ignore']), fromExternal: same(['path', 'ignore']) },
  gemini: {
    name: 'list_directory',
    toExternal: same(['path', 'ignore']),
    fromExternal: (i) => defined({ path: first(i, 'path', 'dir_path'), ignore: i.ignore }),
  },
};

/** `glob` as `Glob` and `glob` (Gemini and Copilot). */
export const globExternal: ExternalNames = {
  claude: { name: 'Glob', toExternal: same(['pattern', 'path']), fromExternal: same(['pattern', 'path']) },
  gemini: {
    name: 'glob',
    toExternal: same(['pattern', 'path']),
    fromExternal: (i) => defined({ pattern: i.pattern, path: first(i, 'path', 'dir_path') }),
  },
  copilot: { name: 'glob', toExternal: same(['pattern', 'path']), fromExternal: same(['pattern', 'path']) },
};

const grepToRipgrepStyle = (a: Input) =>
  defined({
    pattern: a.pattern,
    path: a.path,
    glob: a.glob,
    output_mode: a.output_mode,
    '-i': a.case_insensitive,
    '-A': a.after,
    '-B': a.before,
    '-C': a.context,
    head_limit: a.max_results,
  });
const grepFromRipgrepStyle = (i: Input) =>
  defined({
    pattern: i.pattern,
    path: i.path,
    glob: i.glob,
    output_mode: i.output_mode,
    case_insensitive: i['-i'],
    after: i['-A'],
    before: i['-B'],
    context: i['-C'],
    max_results: i.head_limit,
  });

/** `grep` as `Grep` (ripgrep-style flags `-i`, `-A`, `-B`, `-C`, `head_limit`), Gemini's `grep` and Copilot's `grep`. */
export const grepExternal: ExternalNames = {
  claude: { name: 'Grep', toExternal: grepToRipgrepStyle, fromExternal: grepFromRipgrepStyle },
  gemini: {
    name: 'grep',
    toExternal: (a) => defined({ pattern: a.pattern, path: a.path, include: a.glob }),
    fromExternal: (i) => defined({ pattern: i.pattern, path: first(i, 'path', 'dir_path'), glob: first(i, 'include', 'glob') }),
  },
  copilot: { name: 'grep', toExternal: grepToRipgrepStyle, fromExternal: grepFromRipgrepStyle },
};
