import { FsErrorCode, fsError } from '../errors.js';
import { linesOf } from './text.js';

/** One replacement, as the model asks for it. */
export interface EditSpec {
  readonly old_string: string;
  readonly new_string: string;
  readonly replace_all?: boolean | undefined;
}

/** The edited text and how many replacements each edit made. */
export interface Applied {
  readonly text: string;
  readonly replacements: readonly number[];
}

function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  let at = text.indexOf(needle);
  while (at !== -1) {
    found.push(at);
    at = text.indexOf(needle, at + needle.length);
  }
  return found;
}

/**
 * Applies edits in order to `text`, all or none: the first that cannot
 * apply throws, naming it (`edit 2 of 3`), and nothing is returned. Each
 * `old_string` must occur exactly once unless `replace_all`.
 */
export function applyEdits(text: string, edits: readonly EditSpec[], path: string): Applied {
  let current = text;
  const replacements: number[] = [];
  for (const [index, edit] of edits.entries()) {
    const which = edits.length > 1 ? `edit ${index + 1} of ${edits.length}: ` : '';
    const data = { path, edit: index + 1 };
    if (edit.old_string === '') {
      throw fsError(FsErrorCode.EMPTY_OLD_STRING, `${which}old_string is empty; use write to create or replace a whole file`, data);
    }
    if (edit.old_string === edit.new_string) {
      throw fsError(FsErrorCode.NO_CHANGE, `${which}old_string and new_string are the same, so there is nothing to change`, data);
    }
    const found = occurrences(current, edit.old_string);
    if (found.length === 0) {
      throw fsError(
        FsErrorCode.NO_MATCH,
        `${which}old_string was not found in ${path} (0 matches). It must match exactly, including whitespace and indentation; read the file again if unsure.`,
        { ...data, matches: 0 },
      );
    }
    if (found.length > 1 && edit.replace_all !== true) {
      const lines = linesOf(current, found.slice(0, 20));
      throw fsError(
        FsErrorCode.AMBIGUOUS_MATCH,
        `${which}old_string matches ${found.length} times in ${path} (at lines ${lines.join(', ')}${found.length > 20 ? ', …' : ''}). Add surrounding lines to make it unique, or set replace_all.`,
        { ...data, matches: found.length, lines },
      );
    }
    current = edit.replace_all === true ? current.split(edit.old_string).join(edit.new_string) : replaceAt(current, found[0] ?? 0, edit);
    replacements.push(found.length);
  }
  return { text: current, replacements };
}

function replaceAt(text: string, at: number, edit: EditSpec): string {
  return text.slice(0, at) + edit.new_string + text.slice(at + edit.old_string.length);
}
