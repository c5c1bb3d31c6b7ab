import { realpath } from 'node:fs/promises';
import { isAbsolute, relative } from 'node:path';

/** True when `child` is `parent` or inside it (both real, absolute paths). */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** The real path, or `undefined` when it does not resolve (a dangling link, a loop). */
export async function realOrUndefined(path: string): Promise<string | undefined> {
  try {
    return await realpath(path);
  } catch {
    return undefined;
  }
}
