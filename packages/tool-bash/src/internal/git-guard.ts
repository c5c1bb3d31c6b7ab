import { lstatSync, renameSync } from 'node:fs';
import { join } from 'node:path';

/** A `.git` that a sandboxed command created, and where it was moved. */
export interface PlantedGitDir {
  readonly path: string;
  /** Where it is now (renamed, so git no longer finds it); undefined when the rename failed. */
  readonly movedTo: string | undefined;
}

/**
 * Watches the roots that have no `.git` before a sandboxed call. An existing
 * `.git` is bound read-only, but a missing one cannot be: a command could
 * create `.git/hooks/post-checkout` or a `.git/config` with `core.fsmonitor`,
 * which git runs later, outside any sandbox, when the user works there.
 * After the call, a `.git` (directory, file or link) that appeared in such a
 * root is renamed aside, out of git's reach, and reported.
 */
export class GitGuard {
  readonly #watched: readonly string[];

  constructor(roots: readonly string[]) {
    this.#watched = roots.filter((root) => !exists(join(root, '.git')));
  }

  /** Moves every new `.git` aside (to `.git.dsh-blocked-<tag>`) and lists them. */
  check(tag: string): PlantedGitDir[] {
    const planted: PlantedGitDir[] = [];
    for (const root of this.#watched) {
      const path = join(root, '.git');
      if (!exists(path)) continue;
      const target = join(root, `.git.dsh-blocked-${tag}`);
      try {
        renameSync(path, target);
        planted.push({ path, movedTo: target });
      } catch {
        planted.push({ path, movedTo: undefined });
      }
    }
    return planted;
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
