import { randomBytes } from 'node:crypto';
import { type FileHandle, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { fromOsError } from '../errors.js';

/** What to keep of the file being replaced. */
export interface Ownership {
  /** The mode to keep; absent for a new file, which gets the usual `0o666` less the umask. */
  readonly mode?: number;
  readonly uid?: number;
  readonly gid?: number;
}

/**
 * Replaces `target` (a real path: symlinks already resolved, so a link is
 * written through, never replaced) without a moment where it is torn: a temp
 * file in the same directory with the original mode, fsync, rename, fsync of
 * the directory. On any failure the temp file is removed and the original is
 * untouched. Hard links to the original keep the old content.
 */
export async function writeAtomic(target: string, data: Uint8Array, ownership: Ownership): Promise<void> {
  const dir = path.dirname(target);
  const temp = path.join(dir, `.${path.basename(target)}.${randomBytes(6).toString('hex')}.dsh-tmp`);
  let handle: FileHandle | undefined;
  try {
    handle = await open(temp, 'wx', ownership.mode ?? 0o666);
    await handle.writeFile(data);
    if (ownership.mode !== undefined) await handle.chmod(ownership.mode);
    if (ownership.uid !== undefined && ownership.gid !== undefined && process.getuid?.() === 0) {
      await handle.chown(ownership.uid, ownership.gid).catch(() => undefined);
    }
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temp, target);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw fromOsError(error, target, 'writing');
  }
  await syncDirectory(dir);
}

async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // Some file systems refuse fsync on a directory; the rename itself has happened.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
