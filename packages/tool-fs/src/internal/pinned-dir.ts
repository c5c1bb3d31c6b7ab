import { closeSync, constants, type Dirent, lstatSync, mkdirSync, openSync, readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { FsErrorCode, fromOsError, fsError, osCodeOf } from '../errors.js';
import type { Workspace } from '../workspace.js';

// On Linux, `/proc/self/fd/<fd>/<name>` resolves `<name>` inside the directory
// the descriptor holds, whatever its path is now: it behaves like `openat`,
// `mkdirat`, `renameat`. Node has no `*at` calls, so this is how a checked
// directory stays the one every later step works in.
const procFd = '/proc/self/fd';

/** The real path an open descriptor refers to now (`readlink` of its `/proc/self/fd` entry). */
export function descriptorPath(fd: number): string {
  return readlinkSync(`${procFd}/${fd}`);
}

/**
 * Whether this process can pin directories (a Linux `/proc` whose fd links
 * work). Checked once per plugin instance on a root; without it every tool
 * refuses rather than race (`FS_UNSUPPORTED_PLATFORM`).
 */
export function canPinDirectories(root: string, proc = procFd): boolean {
  if (process.platform !== 'linux') return false;
  let fd: number | undefined;
  try {
    fd = openSync(root, constants.O_RDONLY | constants.O_DIRECTORY);
    return readlinkSync(`${proc}/${fd}`) === root;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * A directory held open by descriptor, checked to be at `real` inside the
 * workspace. Names are opened, created and renamed through it, so swapping a
 * component of its path for a symlink later cannot redirect them; `verify`
 * checks again that it has not been moved (call it before a rename). Metadata
 * calls here are synchronous: microseconds each on a local disk, against a
 * thread-pool round trip for their async forms.
 */
export class PinnedDirectory {
  readonly fd: number;
  /** Where the directory was when pinned (a real path inside a root). */
  readonly real: string;
  readonly #workspace: Workspace;

  private constructor(workspace: Workspace, fd: number, real: string) {
    this.#workspace = workspace;
    this.fd = fd;
    this.real = real;
  }

  /**
   * Pins the existing directory at the real path `real`, or resolves
   * `undefined` when nothing is there. Refuses a descriptor that does not
   * land exactly on `real` (a component was swapped after the check).
   */
  static open(workspace: Workspace, real: string): PinnedDirectory | undefined {
    let fd: number;
    try {
      fd = openSync(real, constants.O_RDONLY | constants.O_DIRECTORY);
    } catch (error) {
      const code = osCodeOf(error);
      if (code === 'ENOENT') return undefined;
      throw fromOsError(error, real, 'opening the directory');
    }
    return PinnedDirectory.#checked(workspace, fd, real);
  }

  /**
   * Pins the directory at `real`, creating the missing ones below its
   * deepest existing ancestor one level at a time: each is made inside the
   * pinned parent, opened without following a symlink, and checked.
   */
  static create(workspace: Workspace, real: string, root: string): PinnedDirectory {
    const missing: string[] = [];
    let at = real;
    let pinned = PinnedDirectory.open(workspace, at);
    while (pinned === undefined) {
      if (at === root || path.dirname(at) === at) {
        throw fsError(FsErrorCode.NOT_FOUND, `${at} does not exist (the workspace root is gone)`, { path: at });
      }
      missing.unshift(path.basename(at));
      at = path.dirname(at);
      pinned = PinnedDirectory.open(workspace, at);
    }
    for (const name of missing) pinned = pinned.#child(name);
    return pinned;
  }

  /**
   * The entries of the directory at the real path `real`, read through a
   * descriptor opened without following a last-component symlink and checked
   * to be at `real`: a directory swapped during a walk is refused
   * (`FS_PATH_CHANGED`), never listed from where the swap points.
   */
  static entries(workspace: Workspace, real: string): Dirent[] {
    let fd: number;
    try {
      fd = openSync(real, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    } catch (error) {
      if (osCodeOf(error) === 'ENOTDIR' && isSymlink(real)) throw changed(real, 'a symbolic link');
      throw fromOsError(error, real, 'listing');
    }
    const pinned = PinnedDirectory.#checked(workspace, fd, real);
    try {
      return readdirSync(`${procFd}/${fd}`, { withFileTypes: true });
    } catch (error) {
      throw fromOsError(error, real, 'listing');
    } finally {
      pinned.close();
    }
  }

  /** A path that resolves `name` inside this directory, like `openat(fd, name)`. */
  at(name: string): string {
    return `${procFd}/${this.fd}/${name}`;
  }

  /** Throws unless the directory is still at the real path it was pinned at. */
  verify(): void {
    let actual: string;
    try {
      actual = descriptorPath(this.fd);
    } catch (error) {
      throw fromOsError(error, this.real, 'checking the directory');
    }
    if (actual === this.real) return;
    if (this.#workspace.rootOf(actual) === undefined) {
      throw fsError(FsErrorCode.SYMLINK_ESCAPE, `${this.real} was swapped for a path outside the workspace (${actual}) during the call`, {
        path: this.real,
        resolved: actual,
      });
    }
    throw changed(this.real, actual);
  }

  close(): void {
    try {
      closeSync(this.fd);
    } catch {
      // Already closed: nothing is held.
    }
  }

  /** Makes (if missing) and pins the subdirectory `name`; this one is closed either way. */
  #child(name: string): PinnedDirectory {
    const real = path.join(this.real, name);
    try {
      this.verify();
      try {
        mkdirSync(this.at(name), 0o777);
      } catch (error) {
        if (osCodeOf(error) !== 'EEXIST') throw error;
      }
      let fd: number;
      try {
        fd = openSync(this.at(name), constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
      } catch (error) {
        if (osCodeOf(error) === 'ENOTDIR' && isSymlink(this.at(name))) throw changed(real, 'a symbolic link');
        if (osCodeOf(error) === 'ELOOP') throw changed(real, 'a symbolic link');
        throw error;
      }
      return PinnedDirectory.#checked(this.#workspace, fd, real);
    } catch (error) {
      throw fromOsError(error, real, 'creating the directory');
    } finally {
      this.close();
    }
  }

  static #checked(workspace: Workspace, fd: number, real: string): PinnedDirectory {
    const pinned = new PinnedDirectory(workspace, fd, real);
    try {
      pinned.verify();
    } catch (error) {
      pinned.close();
      throw error;
    }
    return pinned;
  }
}

function isSymlink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

/** `FS_PATH_CHANGED`: a path that no longer leads where the check saw it. */
export function changed(real: string, now: string): Error {
  return fsError(FsErrorCode.PATH_CHANGED, `${real} changed during the call (it is now ${now}); nothing was changed, try again`, {
    path: real,
    now,
  });
}
