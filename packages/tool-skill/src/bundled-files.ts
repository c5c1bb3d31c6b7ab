import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { SkillErrorCode, type SkillProblem } from './errors.js';
import { isInside, realOrUndefined } from './internal/paths.js';

const maxDepth = 8;

/**
 * Lists a skill's bundled files (everything but the top `SKILL.md` and
 * `.git`), relative with `/` separators, sorted, at most `maxFiles`. A
 * symlink is listed only when it resolves to a file inside the skill's
 * folder; one that points outside is reported (`SKILL_SYMLINK_ESCAPE`) and
 * left out. Linked folders are not followed (no loops).
 */
export async function listBundledFiles(directory: string, maxFiles: number, problems: SkillProblem[]): Promise<string[]> {
  const files: string[] = [];
  let truncated = false;
  const walk = async (dir: string, prefix: string, depth: number): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (files.length >= maxFiles) {
        truncated = true;
        return;
      }
      const rel = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      const full = join(dir, entry.name);
      if (entry.name === '.git' || (depth === 0 && entry.name === 'SKILL.md')) continue;
      if (entry.isDirectory()) {
        if (depth < maxDepth) await walk(full, rel, depth + 1);
      } else if (entry.isFile()) {
        files.push(rel);
      } else if (entry.isSymbolicLink()) {
        const real = await realOrUndefined(full);
        if (real === undefined || !isInside(directory, real)) {
          problems.push({
            code: SkillErrorCode.SYMLINK_ESCAPE,
            message: `${full}: the link ${real === undefined ? 'does not resolve' : `points outside the skill's folder (to ${real})`}; it is not listed`,
            path: full,
            skipped: false,
          });
        } else if (!(await isDirectory(real))) files.push(rel);
      }
    }
  };
  await walk(directory, '', 0);
  if (truncated) {
    problems.push({
      code: SkillErrorCode.FILES_TRUNCATED,
      message: `${directory}: more than ${maxFiles} bundled files; the first ${maxFiles} are listed`,
      path: directory,
      skipped: false,
    });
  }
  return files;
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
