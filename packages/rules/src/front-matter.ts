import { parseDocument } from 'yaml';

/** A Claude Code Markdown file (a SKILL.md, an agent definition) split into its YAML front matter, as plain data, and the Markdown after it. */
export type FrontMatter =
  | { readonly ok: true; readonly data: Readonly<Record<string, unknown>>; readonly body: string }
  | { readonly ok: false; readonly kind: 'missing' | 'yaml' | 'not-a-map'; readonly message: string };

// The opening `---` must be the first line; the block may be empty.
const block = /^---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/;

/**
 * Splits a Markdown file with YAML front matter (Claude Code's SKILL.md and
 * `.claude/agents/*.md`) into front matter and body. The YAML is parsed with
 * duplicate keys refused and aliases bounded (a "billion laughs" document is
 * an error, not a hang); the front matter must be a mapping.
 */
export function parseFrontMatter(text: string): FrontMatter {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const match = block.exec(source);
  if (match === null) {
    return { ok: false, kind: 'missing', message: 'the file does not start with a YAML front matter block between "---" lines' };
  }
  const yaml = match[1] ?? '';
  const body = source.slice(match[0].length);
  let data: unknown;
  try {
    const doc = parseDocument(yaml, { uniqueKeys: true, prettyErrors: true });
    const error = doc.errors[0];
    if (error !== undefined) return { ok: false, kind: 'yaml', message: `the front matter is not valid YAML: ${oneLine(error.message)}` };
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return {
      ok: false,
      kind: 'yaml',
      message: `the front matter is not valid YAML: ${oneLine(error instanceof Error ? error.message : String(error))}`,
    };
  }
  if (data === null || data === undefined) data = {};
  if (typeof data !== 'object' || Array.isArray(data)) {
    return { ok: false, kind: 'not-a-map', message: 'the front matter must be a YAML mapping of fields (name: …, description: …)' };
  }
  return { ok: true, data: data as Record<string, unknown>, body };
}

function oneLine(message: string): string {
  const first = message.split('\n')[0] ?? message;
  return first.length > 300 ? `${first.slice(0, 300)}…` : first;
}
