import { readFileSync } from 'node:fs';
import { parseJsonText } from '@deepseek-ai/dsh-rules';

/** What reading a settings file gave: nothing (absent), its JSON, or why it could not be used. */
export type JsonFile =
  | { readonly kind: 'absent' }
  | { readonly kind: 'ok'; readonly value: unknown }
  | { readonly kind: 'error'; readonly message: string };

/** Reads and parses a JSON file; `comments` allows `//` and block comments (Gemini's settings allow them). */
export function readJsonFile(path: string, comments = false): JsonFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'absent' };
    return { kind: 'error', message: `cannot read the file: ${(error as Error).message}` };
  }
  // An empty file holds no settings: the bash sandbox keeps a missing settings file from being created
  // by mounting over an empty placeholder while a command runs, and a reader must not take that for a
  // broken file.
  if (text.trim() === '') return { kind: 'absent' };
  // Comments are blanked out, not removed, so the line and column still point into the file as written.
  const parsed = parseJsonText(comments ? stripComments(text) : text);
  if (parsed.ok) return { kind: 'ok', value: parsed.value };
  return { kind: 'error', message: `not valid JSON at line ${parsed.line}, column ${parsed.column}: ${parsed.reason}` };
}

/** Removes `//` and block comments outside strings, keeping line breaks so positions stay readable. */
function stripComments(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i += 1;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const skipped = text.slice(i, end === -1 ? text.length : end + 2);
      out += skipped.replace(/[^\n]/g, ' ');
      i = end === -1 ? text.length : end + 2;
    } else {
      out += c;
      i += 1;
    }
  }
  return out;
}
