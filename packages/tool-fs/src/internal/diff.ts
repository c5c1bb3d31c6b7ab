import { formatPatch, structuredPatch } from 'diff';

const context = 3;

/** Offsets just past each `\n` of `text` (and its length, if it does not end with one): line ends. */
function lineEnds(text: string): number[] {
  const ends: number[] = [];
  let at = text.indexOf('\n');
  while (at !== -1) {
    ends.push(at + 1);
    at = text.indexOf('\n', at + 1);
  }
  if (text.length > 0 && !text.endsWith('\n')) ends.push(text.length);
  return ends;
}

/**
 * The unified diff of `before` and `after` (3 lines of context), the same as
 * `createTwoFilesPatch(path, path, before, after)`, but computed only over the
 * lines between the common head and tail: an edit of a few lines in a large
 * file costs what the edit costs, not what the file costs.
 */
export function unifiedDiff(path: string, before: string, after: string): string {
  const a = lineEnds(before);
  const b = lineEnds(after);
  const lineAt = (text: string, ends: number[], i: number) => text.slice(i === 0 ? 0 : (ends[i - 1] ?? 0), ends[i]);
  let head = 0;
  while (head < a.length && head < b.length && lineAt(before, a, head) === lineAt(after, b, head)) head += 1;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    lineAt(before, a, a.length - 1 - tail) === lineAt(after, b, b.length - 1 - tail)
  ) {
    tail += 1;
  }
  const skip = Math.max(0, head - context);
  const keepTail = Math.max(0, tail - context);
  const cut = (text: string, ends: number[]) =>
    text.slice(skip === 0 ? 0 : (ends[skip - 1] ?? 0), keepTail === 0 ? text.length : (ends[ends.length - 1 - keepTail] ?? text.length));
  const patch = structuredPatch(path, path, cut(before, a), cut(after, b), '', '', { context });
  for (const hunk of patch.hunks) {
    hunk.oldStart += skip;
    hunk.newStart += skip;
  }
  return formatPatch(patch);
}
