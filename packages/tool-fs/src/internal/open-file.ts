import { constants } from 'node:fs';
import { type FileHandle, lstat, open, readlink } from 'node:fs/promises';
import { FsErrorCode, fromOsError, fsError } from '../errors.js';
import type { ResolvedPath, Workspace } from '../workspace.js';

/** What `fstat` said about an opened file. */
export interface OpenedFile {
  readonly handle: FileHandle;
  readonly size: number;
  readonly mtimeMs: number;
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
}

/**
 * Opens a resolved path for reading without ever blocking or following a
 * last-component symlink: `O_NOFOLLOW | O_NONBLOCK`, then `fstat` (regular
 * files only) and, on Linux, a check that the descriptor's real path is still
 * inside the workspace (closing most of the check-then-open window).
 * Resolves `undefined` when nothing is there.
 */
export async function openRegular(workspace: Workspace, target: ResolvedPath): Promise<OpenedFile | undefined> {
  const p = target.real;
  try {
    const info = await lstat(p);
    if (info.isDirectory())
      throw fsError(FsErrorCode.IS_DIRECTORY, `${p} is a directory; use list or glob to see what it holds`, { path: p });
    if (!info.isFile() && !info.isSymbolicLink()) throw specialFile(p);
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    throw fromOsError(error, p, 'opening');
  }
  let handle: FileHandle;
  try {
    handle = await open(p, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') {
      throw fsError(FsErrorCode.PATH_CHANGED, `${p} became a symbolic link while it was being opened; try again`, { path: p });
    }
    throw fromOsError(error, p, 'opening');
  }
  try {
    const info = await handle.stat();
    if (info.isDirectory())
      throw fsError(FsErrorCode.IS_DIRECTORY, `${p} is a directory; use list or glob to see what it holds`, { path: p });
    if (!info.isFile()) throw specialFile(p);
    await checkDescriptor(workspace, handle, p);
    return { handle, size: info.size, mtimeMs: info.mtimeMs, mode: info.mode & 0o7777, uid: info.uid, gid: info.gid };
  } catch (error) {
    await handle.close();
    throw fromOsError(error, p, 'opening');
  }
}

function specialFile(p: string): Error {
  return fsError(FsErrorCode.SPECIAL_FILE, `${p} is a FIFO, socket or device, not a regular file; it cannot be read or changed`, {
    path: p,
  });
}

async function checkDescriptor(workspace: Workspace, handle: FileHandle, p: string): Promise<void> {
  if (process.platform !== 'linux') return;
  let actual: string;
  try {
    actual = await readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    return; // No /proc: the realpath check already ran.
  }
  if (workspace.rootOf(actual) === undefined) {
    throw fsError(FsErrorCode.SYMLINK_ESCAPE, `${p} was swapped for a path outside the workspace (${actual}) while it was opened`, {
      path: p,
      resolved: actual,
    });
  }
}
