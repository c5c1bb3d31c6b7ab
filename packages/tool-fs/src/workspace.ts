import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { DshError, ErrorCode, messageOf } from '@deepseek-ai/dsh-core';
import { FsErrorCode, fromOsError, fsError, osCodeOf } from './errors.js';
import { canPinDirectories, changed } from './internal/pinned-dir.js';

/** Whether a path is about to be read or changed. */
export type Access = 'read' | 'write';

/** A path that passed confinement: real (no symlinks), inside a root. */
export interface ResolvedPath {
  /** The path as the model gave it. */
  readonly input: string;
  /** The real path: every symlink resolved, for a new file that of its deepest existing parent. */
  readonly real: string;
  /** The real root that holds it. */
  readonly root: string;
  /** True when the most specific root holding it is read-only. */
  readonly readOnly: boolean;
}

interface Root {
  readonly lexical: string;
  readonly real: string;
  readonly readOnly: boolean;
}

const pseudoFilesystems = ['/proc', '/sys', '/dev'];
const maxSymlinkHops = 40;

/** True when `p` is `dir` or lies beneath it (compared with a separator, so `/ws-evil` is not in `/ws`). */
export function isWithin(p: string, dir: string): boolean {
  if (p === dir) return true;
  const prefix = dir.endsWith(path.sep) ? dir : dir + path.sep;
  return p.startsWith(prefix);
}

function isPseudo(p: string): boolean {
  return pseudoFilesystems.some((fs) => isWithin(p, fs));
}

/**
 * The configured roots and the one way to turn a model's path into a real
 * path inside them. Build it with `Workspace.open`, which resolves the roots.
 */
export class Workspace {
  readonly cwd: string;
  readonly #roots: readonly Root[];
  readonly #hardLinkDirs: readonly string[];

  private constructor(cwd: string, roots: readonly Root[], hardLinkDirs: readonly string[]) {
    this.cwd = cwd;
    // Most specific first, so a read-only root nested in a writable one wins.
    this.#roots = [...roots].sort((a, b) => b.real.length - a.real.length);
    this.#hardLinkDirs = hardLinkDirs;
  }

  /**
   * Resolves the roots (they must exist and be directories) and the places
   * where files with several hard links are accepted. Refuses with
   * `FS_UNSUPPORTED_PLATFORM` where directories cannot be pinned by
   * descriptor (no Linux `/proc`): the tools would race instead.
   */
  static open(
    cwd: string,
    roots: readonly string[],
    readOnlyRoots: readonly string[],
    allowHardLinks: readonly string[] = [],
    proc?: string,
  ): Workspace {
    const absoluteCwd = path.resolve(cwd);
    const all = [...roots.map((r) => ({ r, readOnly: false })), ...readOnlyRoots.map((r) => ({ r, readOnly: true }))];
    const resolved: Root[] = [];
    for (const { r, readOnly } of all) {
      const lexical = path.resolve(absoluteCwd, r);
      let real: string;
      try {
        real = realpathSync.native(lexical);
        if (!lstatSync(real).isDirectory()) throw new Error('not a directory');
      } catch (error) {
        throw new DshError(ErrorCode.INVALID_OPTIONS, `toolFs: root "${r}" must be an existing directory: ${messageOf(error)}`);
      }
      resolved.push({ lexical, real, readOnly });
    }
    const first = resolved[0];
    if (first !== undefined && !canPinDirectories(first.real, proc)) {
      throw new DshError(
        FsErrorCode.UNSUPPORTED_PLATFORM,
        `toolFs: this system has no /proc/self/fd (Linux) to pin directories by descriptor, so a path swapped during a call could not be caught; the file tools refuse to run here (platform ${process.platform})`,
      );
    }
    // Resolved where they exist; a missing one is kept as written (it allows nothing until it exists).
    const hardLinkDirs = allowHardLinks.map((p) => {
      const lexical = path.resolve(absoluteCwd, p);
      try {
        return realpathSync.native(lexical);
      } catch {
        return lexical;
      }
    });
    return new Workspace(absoluteCwd, resolved, hardLinkDirs);
  }

  /** True when the real path lies in (or is) one of the `allowHardLinks` places. */
  allowsHardLinks(real: string): boolean {
    return this.#hardLinkDirs.some((dir) => isWithin(real, dir));
  }

  /** The real roots, most specific first. */
  get roots(): readonly string[] {
    return this.#roots.map((r) => r.real);
  }

  /** The most specific root holding the real path `real`, if any. */
  rootOf(real: string): { readonly real: string; readonly readOnly: boolean } | undefined {
    return this.#roots.find((r) => isWithin(real, r.real));
  }

  /**
   * Checks a model's path and returns its real form. Refusals, each with its
   * own code: NUL bytes, `/proc` `/sys` `/dev`, `..` that leaves the roots,
   * absolute paths outside them, sibling-prefix paths, symlinks (last
   * component or a parent) that lead outside, and changes under a read-only root.
   */
  resolve(input: string, access: Access): ResolvedPath {
    if (input.includes('\0')) {
      throw fsError(FsErrorCode.PATH_NUL_BYTE, 'the path contains a NUL byte, which no file name may hold', { path: input });
    }
    const lexical = path.resolve(this.cwd, input);
    if (isPseudo(lexical)) {
      throw fsError(
        FsErrorCode.PSEUDO_FILESYSTEM,
        `${lexical} is on a kernel pseudo file system (/proc, /sys, /dev); it is not a workspace file`,
        {
          path: lexical,
        },
      );
    }
    const inside = this.#roots.some((r) => isWithin(lexical, r.lexical) || isWithin(lexical, r.real));
    if (!inside) throw this.#outside(input, lexical);
    const real = realResolve(lexical, 0);
    const root = this.rootOf(real);
    if (root === undefined || isPseudo(real)) {
      throw fsError(
        FsErrorCode.SYMLINK_ESCAPE,
        `${input} resolves through a symbolic link to ${real}, which is outside the workspace (${this.roots.join(', ')})`,
        { path: lexical, resolved: real },
      );
    }
    if (access === 'write' && root.readOnly) {
      throw fsError(FsErrorCode.READ_ONLY_ROOT, `${real} is under the read-only root ${root.real}; it may be read but not changed`, {
        path: real,
        root: root.real,
      });
    }
    return { input, real, root: root.real, readOnly: root.readOnly };
  }

  /**
   * `resolve` in a tool body, whose path the tool's `resolvePaths` made real
   * before the policies judged it: it must still resolve to itself. If it
   * does not (a link was swapped since, or a path refused then resolves
   * now), the call refuses (`FS_PATH_CHANGED`) rather than touch a file no
   * policy saw.
   */
  resolveJudged(input: string, access: Access): ResolvedPath {
    const resolved = this.resolve(input, access);
    if (resolved.real !== input) throw changed(input, resolved.real);
    return resolved;
  }

  #outside(input: string, lexical: string): Error {
    const roots = this.roots.join(', ');
    const sibling = this.#roots.find((r) => lexical.startsWith(r.real) || lexical.startsWith(r.lexical));
    if (sibling !== undefined) {
      return fsError(
        FsErrorCode.PATH_SIBLING_PREFIX,
        `${lexical} only shares a name prefix with the root ${sibling.real}; it is outside the workspace (${roots})`,
        { path: lexical },
      );
    }
    if (input.split(/[\\/]+/).includes('..')) {
      return fsError(FsErrorCode.PATH_TRAVERSAL, `${input} uses ".." to leave the workspace (${roots})`, { path: lexical });
    }
    return fsError(FsErrorCode.PATH_OUTSIDE_ROOTS, `${lexical} is outside the workspace (${roots})`, { path: lexical });
  }
}

/**
 * `realpath` that also works for paths that do not exist yet: the deepest
 * existing ancestor is resolved and the rest appended; a dangling symlink is
 * followed to where it points, so a write lands at its target. Synchronous:
 * one system call for an existing path, where the async form costs a
 * thread-pool round trip. A path that changes under it is `FS_PATH_CHANGED`.
 */
function realResolve(p: string, hops: number): string {
  try {
    return realpathSync.native(p);
  } catch (error) {
    if (osCodeOf(error) !== 'ENOENT') throw fromOsError(error, p, 'resolving');
  }
  let isLink: boolean;
  try {
    isLink = lstatSync(p).isSymbolicLink();
  } catch (error) {
    if (osCodeOf(error) !== 'ENOENT') throw fromOsError(error, p, 'resolving');
    isLink = false;
  }
  const parent = path.dirname(p);
  if (!isLink) return parent === p ? p : path.join(realResolve(parent, hops), path.basename(p));
  if (hops >= maxSymlinkHops) throw fsError(FsErrorCode.SYMLINK_LOOP, `${p} has too many levels of symbolic links`, { path: p });
  const dir = realResolve(parent, hops);
  let target: string;
  try {
    target = readlinkSync(p);
  } catch (error) {
    // It was a symlink a moment ago: replaced (EINVAL) or removed (ENOENT) since.
    const code = osCodeOf(error);
    if (code === 'EINVAL' || code === 'ENOENT') throw changed(p, code === 'EINVAL' ? 'not a symbolic link' : 'gone');
    throw fromOsError(error, p, 'resolving');
  }
  return realResolve(path.resolve(dir, target), hops + 1);
}
