import { lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { isStub } from './mount-stubs.js';

/**
 * How the sandbox keeps protected paths (read-only paths and masks) inside
 * writable roots what they are, computed per call from the disk as it is:
 *
 * - `readOnly`: the read-only paths that exist, by their real path (bwrap
 *   cannot mount on a symlink, and one with an absolute target would make it
 *   fail: the probe, then every call).
 * - `stubs`: for a read-only path that does not exist, its first missing
 *   component, covered with an empty read-only file so that nothing can be
 *   created there (bwrap makes the mount point on the host; `mount-stubs`
 *   removes it after the call).
 * - `pins`: every directory between a root and a protected path, bound over
 *   itself. A mount point cannot be renamed or removed (EBUSY), so a command
 *   cannot move a protected path's parent aside and put a directory of its
 *   own in its place, which would expose a hidden file or replace a
 *   read-only one from the next call on.
 */
export interface ProtectedLayout {
  readonly readOnly: readonly string[];
  readonly stubs: readonly string[];
  readonly pins: readonly string[];
}

/**
 * Names a root's command may create although they are listed read-only: a
 * root without `.git` is watched by the git guard instead (so `git init`
 * works and a planted repository is moved aside), and `.husky` is created by
 * the tools that set it up.
 */
const leftCreatable: ReadonlySet<string> = new Set(['.git', '.husky']);

/** Symlinks followed at most this deep (the kernel's own limit). */
const maxLinks = 40;

/** The layout for `readOnlyPaths` and the (existing, resolved) `masks` inside `roots`. */
export function protectedLayout(roots: readonly string[], readOnlyPaths: readonly string[], masks: readonly string[]): ProtectedLayout {
  const readOnly = new Set<string>();
  const stubs = new Set<string>();
  for (const path of readOnlyPaths) {
    const found = locate(path);
    if (found === undefined) continue;
    if (found.exists && !isStub(found.path)) readOnly.add(found.path);
    else if (found.exists || mayCreate(found.path, roots)) stubs.add(found.path);
  }
  const covered = [...readOnly, ...masks];
  const pins = new Set<string>();
  for (const path of [...readOnly, ...stubs, ...masks]) {
    for (const root of roots) {
      if (!strictlyInside(path, root)) continue;
      for (let dir = dirname(path); strictlyInside(dir, root); dir = dirname(dir)) {
        if (roots.includes(dir) || covered.some((c) => dir === c || strictlyInside(dir, c))) continue;
        pins.add(dir);
      }
    }
  }
  const stubList = [...stubs].filter((stub) => !covered.some((c) => strictlyInside(stub, c)));
  return { readOnly: [...readOnly], stubs: stubList, pins: byDepth([...pins]) };
}

/**
 * Where `path` really is: its real path when it exists; otherwise the first
 * missing component under its deepest existing ancestor (a dangling symlink
 * on the way is followed, so a write through it would land there), with
 * `exists: false`. Undefined when nothing can ever be created there (an
 * ancestor is a file) or the links do not end.
 */
function locate(path: string): { readonly path: string; readonly exists: boolean } | undefined {
  let current = resolve(path);
  for (let links = 0; links < maxLinks; links += 1) {
    try {
      return { path: realpathSync(current), exists: true };
    } catch {
      // missing somewhere: find where below
    }
    let ancestor = dirname(current);
    let first = current;
    let real: string | undefined;
    while (real === undefined) {
      try {
        real = realpathSync(ancestor);
      } catch {
        if (dirname(ancestor) === ancestor) return undefined;
        first = ancestor;
        ancestor = dirname(ancestor);
      }
    }
    if (!isDirectory(real)) return undefined;
    const missing = join(real, basename(first));
    let target: string;
    try {
      target = readlinkSync(missing);
    } catch {
      return lstatOk(missing) ? undefined : { path: missing, exists: false };
    }
    current = join(resolve(real, target), current.slice(first.length));
  }
  return undefined;
}

/** Only inside a writable root can anything be created; a root's `.git` and `.husky` stay creatable. */
function mayCreate(path: string, roots: readonly string[]): boolean {
  const inRoot = roots.filter((root) => strictlyInside(path, root));
  if (inRoot.length === 0) return false;
  return !(leftCreatable.has(basename(path)) && inRoot.includes(dirname(path)));
}

function strictlyInside(path: string, dir: string): boolean {
  return path.startsWith(dir === sep ? sep : `${dir}${sep}`) && path !== dir;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function lstatOk(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Shorter paths first, so a bind nested in another lands on top of it. */
export function byDepth(paths: readonly string[]): string[] {
  return [...new Set(paths)].sort((a, b) => a.length - b.length || a.localeCompare(b));
}
