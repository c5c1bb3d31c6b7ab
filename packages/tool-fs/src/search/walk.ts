import type { Dirent } from 'node:fs';
import path from 'node:path';
import { PinnedDirectory } from '../internal/pinned-dir.js';
import type { Workspace } from '../workspace.js';
import { IgnoreRules } from './ignore-rules.js';

/** A regular file found by `walkFiles`. */
export interface WalkedFile {
  readonly abs: string;
  /** Relative to the walk's base, with `/` separators. */
  readonly rel: string;
}

/** How to walk. */
export interface WalkOptions {
  readonly workspace: Workspace;
  readonly root: string;
  readonly base: string;
  readonly includeIgnored: boolean;
  readonly signal: AbortSignal;
}

const directoriesPerBreath = 32;

/**
 * Every regular file beneath `base`, sorted by relative path. Symbolic
 * links are not followed, and each directory is read through a descriptor
 * checked to be where the walk expects it, so a walk never leaves the
 * workspace, even when a directory is swapped for a link during it; `.git` and,
 * unless `includeIgnored`, what `.gitignore` files ignore are skipped
 * (ignored directories are not entered), as are unreadable (or swapped) directories.
 * Directories are read synchronously (much faster than a thread-pool round
 * trip each), yielding to the event loop between batches.
 */
export async function walkFiles(options: WalkOptions): Promise<WalkedFile[]> {
  const files: WalkedFile[] = [];
  const rules = options.includeIgnored ? undefined : await IgnoreRules.at(options.root, options.base);
  const stack: { dir: string; rel: string; rules: IgnoreRules | undefined }[] = [{ dir: options.base, rel: '', rules }];
  let sinceBreath = 0;
  while (stack.length > 0) {
    const next = stack.pop();
    if (next === undefined) break;
    sinceBreath += 1;
    if (sinceBreath >= directoriesPerBreath) {
      sinceBreath = 0;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    options.signal.throwIfAborted();
    let entries: Dirent[];
    try {
      entries = PinnedDirectory.entries(options.workspace, next.dir);
    } catch {
      continue;
    }
    const hasRules = entries.some((e) => e.name === '.gitignore');
    const here = next.rules === undefined || next.dir === options.base || !hasRules ? next.rules : await next.rules.enter(next.dir);
    const subdirectories: { dir: string; rel: string; rules: IgnoreRules | undefined }[] = [];
    for (const entry of entries) {
      const abs = path.join(next.dir, entry.name);
      const rel = next.rel === '' ? entry.name : `${next.rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if ((entry.name === '.git' && !options.includeIgnored) || here?.ignores(abs, true)) continue;
        subdirectories.push({ dir: abs, rel, rules: here });
      } else if (entry.isFile()) {
        if (here?.ignores(abs, false)) continue;
        files.push({ abs, rel });
      }
    }
    stack.push(...subdirectories);
  }
  return files.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}
