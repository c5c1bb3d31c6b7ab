import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fstatSync,
  fsync,
  linkSync,
  openSync,
  renameSync,
  unlinkSync,
  write,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { FsErrorCode, fromOsError, fsError, osCodeOf } from '../errors.js';
import { directIoBytes } from './direct-io.js';
import type { PinnedDirectory } from './pinned-dir.js';

const writeAt = promisify(write);
const fsyncOf = promisify(fsync);

/** What to keep of the file being replaced. */
export interface Ownership {
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
}

/**
 * Replaces `name` in the pinned directory `dir` without a moment where it is
 * torn: a temp file created in that same directory (`O_EXCL | O_NOFOLLOW`)
 * with the original mode, fsync (unless `fsync` is false), a check that the directory is still where it
 * was pinned, then a rename inside it. On any failure the temp file is removed
 * and the original is untouched. Hard links to the original keep the old
 * content. A new file (`replacing` undefined) is linked into place, never
 * over a file that appeared meanwhile (`FS_APPEARED_SINCE_READ`). Resolves
 * the new file's mtime.
 */
export async function writeAtomic(
  dir: PinnedDirectory,
  name: string,
  data: Uint8Array,
  replacing: Ownership | undefined,
  fsync: boolean,
): Promise<number> {
  const target = path.join(dir.real, name);
  const temp = `.${name}.${randomBytes(6).toString('hex')}.dsh-tmp`;
  let fd: number | undefined;
  let created = false;
  try {
    // A new file gets the usual 0o666 less the umask; a replacement keeps the original's mode (and owner, as root).
    fd = openSync(dir.at(temp), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, replacing?.mode ?? 0o666);
    created = true;
    let written = 0;
    const direct = data.length <= directIoBytes;
    while (written < data.length) {
      const left = data.length - written;
      written += direct ? writeSync(fd, data, written, left, null) : (await writeAt(fd, data, written, left, null)).bytesWritten;
    }
    if (replacing !== undefined) fchmodSync(fd, replacing.mode);
    if (replacing !== undefined && process.getuid?.() === 0) {
      try {
        fchownSync(fd, replacing.uid, replacing.gid);
      } catch {
        // Keeping the owner is best effort.
      }
    }
    // The data is on disk before the rename, so a crash leaves the old file or the new one, never a torn one.
    if (fsync) await fsyncOf(fd);
    const mtimeMs = fstatSync(fd).mtimeMs;
    closeSync(fd);
    fd = undefined;
    dir.verify();
    if (replacing === undefined) createOnly(dir, temp, name, target);
    else renameSync(dir.at(temp), dir.at(name));
    return mtimeMs;
  } catch (error) {
    if (fd !== undefined) closeQuietly(fd);
    if (created) unlinkQuietly(dir.at(temp));
    throw fromOsError(error, target, 'writing');
  }
}

const noHardLinks = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK']);

/** Puts the temp file at `name` only if nothing is there (`link` fails on an existing name, `rename` would replace it). */
function createOnly(dir: PinnedDirectory, temp: string, name: string, target: string): void {
  try {
    linkSync(dir.at(temp), dir.at(name));
  } catch (error) {
    const code = osCodeOf(error);
    if (code === 'EEXIST') {
      throw fsError(FsErrorCode.APPEARED_SINCE_READ, `${target} appeared while it was being created; read it, then try again`, {
        path: target,
      });
    }
    // A file system without hard links: the rename is all there is.
    if (code === undefined || !noHardLinks.has(code)) throw error;
    renameSync(dir.at(temp), dir.at(name));
    return;
  }
  unlinkQuietly(dir.at(temp));
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Nothing more to release.
  }
}

function unlinkQuietly(p: string): void {
  try {
    unlinkSync(p);
  } catch {
    // Already gone.
  }
}
