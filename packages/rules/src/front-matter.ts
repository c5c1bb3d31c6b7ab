import { parseDocument } from 'yaml';

/** How a front matter that is not valid YAML was still read: the keys whose values were quoted, and the error they caused. */
export interface FrontMatterRepair {
  /** The top-level keys whose one-line values were wrapped in double quotes, in file order. */
  readonly keys: readonly string[];
  /** The YAML error of the file as written (first line of it), for the warning a loader shows. */
  readonly error: string;
}

/**
 * A Claude Code Markdown file (a SKILL.md, an agent definition) split into
 * its YAML front matter, as plain data, and the Markdown after it; or why it
 * cannot be: `missing` (no `---` block at the top), `unclosed` (a `---` line
 * at the top that is never closed), `yaml` (not valid YAML even with
 * Claude Code's repair) or `not-a-map`.
 */
export type FrontMatter =
  | {
      readonly ok: true;
      readonly data: Readonly<Record<string, unknown>>;
      readonly body: string;
      /** Present when the YAML was only readable after quoting values, as Claude Code does: loaders warn with it. */
      readonly repaired?: FrontMatterRepair;
    }
  | { readonly ok: false; readonly kind: 'missing' | 'unclosed' | 'yaml' | 'not-a-map'; readonly message: string };

// The opening `---` must be the first line; the block may be empty.
const block = /^---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/;
const opening = /^---[ \t]*\r?\n/;

// Claude Code's rule for a line its retry may quote: an unindented `key: value`
// with a one-line value holding a character that plain YAML scalars cannot,
// or a `: ` (a second mapping inside the value).
const simpleLine = /^([A-Za-z_-]+):[ \t]+(.+)$/;
const special = /[{}[\]*&#!|>%@`]|: /;

/**
 * Splits a Markdown file with YAML front matter (Claude Code's SKILL.md and
 * `.claude/agents/*.md`) into front matter and body. The YAML is parsed with
 * duplicate keys refused and aliases bounded (a "billion laughs" document is
 * an error, not a hang); the front matter must be a mapping.
 *
 * Front matter that is not valid YAML is read again the way Claude Code
 * reads it: the values of unindented one-line `key: value` lines that hold
 * a `: ` or one of `{}[]*&#!|>%@` and a backquote are taken literally, as if
 * written in double quotes (the usual case: an agent `description` with
 * `<example>` blocks and `user: "…"` inside). First only the lines the YAML
 * errors point at are quoted, so a valid list elsewhere stays a list; then,
 * if that is not enough, every such line, which is Claude Code's own retry.
 * The result then carries `repaired`. YAML that is still invalid (a
 * continuation line that is not indented, an unclosed quote, a duplicate
 * key) is refused with the error of the file as written.
 */
export function parseFrontMatter(text: string): FrontMatter {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const match = block.exec(source);
  if (match === null) {
    if (opening.test(source)) {
      return {
        ok: false,
        kind: 'unclosed',
        message: 'the front matter block opened by the first "---" line is never closed by another "---" line',
      };
    }
    return { ok: false, kind: 'missing', message: 'the file does not start with a YAML front matter block between "---" lines' };
  }
  const yaml = (match[1] ?? '').replace(/\r\n/g, '\n');
  const body = source.slice(match[0].length);
  const strict = load(yaml);
  let loaded: Loaded = strict;
  let repaired: FrontMatterRepair | undefined;
  if (!strict.ok && strict.line !== undefined) {
    const retried = repair(yaml, strict.line);
    if (retried !== undefined) {
      loaded = retried.loaded;
      repaired = Object.freeze({ keys: Object.freeze(retried.keys), error: strict.message });
    }
  }
  // A repair that reads replaces `loaded`; otherwise this is the error of the file as written.
  if (!loaded.ok) return { ok: false, kind: 'yaml', message: `the front matter is not valid YAML: ${loaded.message}` };
  let data = loaded.data;
  if (data === null || data === undefined) data = {};
  if (typeof data !== 'object' || Array.isArray(data)) {
    return { ok: false, kind: 'not-a-map', message: 'the front matter must be a YAML mapping of fields (name: …, description: …)' };
  }
  const result = { ok: true as const, data: data as Record<string, unknown>, body };
  return repaired === undefined ? result : { ...result, repaired };
}

type Loaded =
  | { readonly ok: true; readonly data: unknown }
  // `line` (1-based) is set for a syntax error a quoted value might fix; never for a duplicate key or an alias bomb.
  | { readonly ok: false; readonly message: string; readonly line?: number };

function load(yaml: string): Loaded {
  try {
    const doc = parseDocument(yaml, { uniqueKeys: true, prettyErrors: true });
    const error = doc.errors[0];
    if (error !== undefined) {
      const line = error.code === 'DUPLICATE_KEY' ? undefined : error.linePos?.[0].line;
      return line === undefined ? { ok: false, message: oneLine(error.message) } : { ok: false, message: oneLine(error.message), line };
    }
    return { ok: true, data: doc.toJS({ maxAliasCount: 100 }) };
  } catch (error) {
    return { ok: false, message: oneLine(error instanceof Error ? error.message : String(error)) };
  }
}

/**
 * Quotes the quotable line each error points at, one at a time (a line is
 * quoted once, so this ends); when an error points at a line that cannot be
 * quoted, falls back to quoting every quotable line, as Claude Code does.
 * `undefined` when neither reads.
 */
function repair(yaml: string, firstLine: number): { readonly loaded: Loaded; readonly keys: string[] } | undefined {
  const lines = yaml.split('\n');
  const quoted = new Set<number>();
  let line: number | undefined = firstLine;
  while (line !== undefined && quotable(lines[line - 1]) && !quoted.has(line - 1)) {
    quoted.add(line - 1);
    const loaded = load(withQuoted(lines, quoted));
    if (loaded.ok) return { loaded, keys: keysOf(lines, quoted) };
    line = loaded.line;
  }
  const every = new Set(lines.flatMap((l, i) => (quotable(l) ? [i] : [])));
  if (every.size === 0) return undefined;
  const loaded = load(withQuoted(lines, every));
  return loaded.ok ? { loaded, keys: keysOf(lines, every) } : undefined;
}

function quotable(line: string | undefined): boolean {
  const value = line === undefined ? undefined : simpleLine.exec(line)?.[2]?.trimEnd();
  if (value === undefined || value === '') return false;
  const alreadyQuoted = (value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'"));
  return !alreadyQuoted && special.test(value);
}

function withQuoted(lines: readonly string[], which: ReadonlySet<number>): string {
  return lines
    .map((line, i) => {
      if (!which.has(i)) return line;
      const [, key, value] = simpleLine.exec(line) as RegExpExecArray;
      // The value's characters exactly: only backslash and double quote need escaping inside double quotes.
      return `${key}: "${(value as string).trimEnd().replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
    })
    .join('\n');
}

function keysOf(lines: readonly string[], which: ReadonlySet<number>): string[] {
  return [...which].sort((a, b) => a - b).map((i) => simpleLine.exec(lines[i] as string)?.[1] as string);
}

function oneLine(message: string): string {
  const first = message.split('\n')[0] ?? message;
  const trimmed = first.endsWith(':') ? first.slice(0, -1) : first;
  return trimmed.length > 300 ? `${trimmed.slice(0, 300)}…` : trimmed;
}
