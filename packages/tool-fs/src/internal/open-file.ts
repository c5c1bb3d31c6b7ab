import { closeSync, constants, fstatSync, openSync, read } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { FsErrorCode, fromOsError, fsError, osCodeOf } from '../errors.js';
import type { ResolvedPath, Workspace } from '../workspace.js';
import { changed, descriptorPath, PinnedDirectory } from './pinned-dir.js';

const readAt = promisify(read);

/** What `fstat` said about an opened regular file. */
export interface OpenedFile {
  readonly fd: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
}

/**
 * A resolved path's directory pinned by descriptor (absent when it does not
 * exist yet) and the file in it (absent when there is none). Close it.
 */
export interface PinnedTarget {
  readonly dir: PinnedDirectory | undefined;
  /** The last component, opened and (later) replaced inside `dir`. */
  readonly name: string;
  readonly file: OpenedFile | undefined;
  close(): void;
}

/**
 * Pins the directory of a resolved path and opens the file in it without
 * ever blocking or following a symlink: `O_NOFOLLOW | O_NONBLOCK` inside the
 * pinned directory, `fstat` on the descriptor (regular files only; more than
 * one hard link only where allowed) and a check that the descriptor is the
 * checked path. Every later read and write goes through what this returns.
 */
export function openPinned(workspace: Workspace, target: ResolvedPath): PinnedTarget {
  // A root's parent is outside the workspace: never pin it.
  if (target.real === target.root) {
    throw fsError(FsErrorCode.IS_DIRECTORY, `${target.real} is a directory; use list or glob to see what it holds`, { path: target.real });
  }
  const name = path.basename(target.real);
  const dir = PinnedDirectory.open(workspace, path.dirname(target.real));
  let file: OpenedFile | undefined;
  try {
    file = dir === undefined ? undefined : openIn(workspace, dir, name, target.real);
  } catch (error) {
    dir?.close();
    throw error;
  }
  return {
    dir,
    name,
    file,
    close() {
      if (file !== undefined) closeQuietly(file.fd);
      dir?.close();
    },
  };
}

function openIn(workspace: Workspace, dir: PinnedDirectory, name: string, real: string): OpenedFile | undefined {
  let fd: number;
  try {
    fd = openSync(dir.at(name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = osCodeOf(error);
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw changed(real, 'a symbolic link');
    if (code === 'ENXIO') throw specialFile(real);
    throw fromOsError(error, real, 'opening');
  }
  try {
    const info = fstatSync(fd);
    if (info.isDirectory()) {
      throw fsError(FsErrorCode.IS_DIRECTORY, `${real} is a directory; use list or glob to see what it holds`, { path: real });
    }
    if (!info.isFile()) throw specialFile(real);
    if (info.nlink > 1 && !workspace.allowsHardLinks(real)) {
      throw fsError(
        FsErrorCode.HARD_LINK,
        `${real} has ${info.nlink} hard links, so its content may belong to a file outside the workspace; it is refused (see the allowHardLinks option)`,
        { path: real, links: info.nlink },
      );
    }
    const actual = descriptorPath(fd);
    if (actual !== real) {
      if (workspace.rootOf(actual) === undefined) {
        throw fsError(FsErrorCode.SYMLINK_ESCAPE, `${real} was swapped for a path outside the workspace (${actual}) while it was opened`, {
          path: real,
          resolved: actual,
        });
      }
      throw changed(real, actual);
    }
    return { fd, size: info.size, mtimeMs: info.mtimeMs, mode: info.mode & 0o7777, uid: info.uid, gid: info.gid };
  } catch (error) {
    closeQuietly(fd);
    throw fromOsError(error, real, 'opening');
  }
}

/** Reads up to `length` bytes at the descriptor's current position (one thread-pool round trip). */
export async function readChunk(fd: number, buffer: Buffer, length: number): Promise<number> {
  const { bytesRead } = await readAt(fd, buffer, 0, length, null);
  return bytesRead;
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Nothing more to release.
  }
}

function specialFile(p: string): Error {
  return fsError(FsErrorCode.SPECIAL_FILE, `${p} is a FIFO, socket or device, not a regular file; it cannot be read or changed`, {
    path: p,
  });
}

/** Runs `work` with the target pinned, and releases the descriptors when it settles. */
export async function withPinned<T>(workspace: Workspace, target: ResolvedPath, work: (pinned: PinnedTarget) => Promise<T>): Promise<T> {
  const pinned = openPinned(workspace, target);
  try {
    return await work(pinned);
  } finally {
    pinned.close();
  }
}
