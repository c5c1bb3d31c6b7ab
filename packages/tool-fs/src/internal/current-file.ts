import { createHash } from 'node:crypto';
import { readSync } from 'node:fs';
import { FsErrorCode, fromOsError, fsError } from '../errors.js';
import { directIoBytes } from './direct-io.js';
import { type PinnedTarget, readChunk } from './open-file.js';

/** What is at a path right now. */
export type CurrentFile =
  | { readonly exists: false }
  | {
      readonly exists: true;
      readonly sha256: string;
      readonly size: number;
      readonly mtimeMs: number;
      readonly mode: number;
      readonly uid: number;
      readonly gid: number;
      /** The content, when asked for (`keepBytes`). */
      readonly bytes: Buffer | undefined;
    };

const chunkSize = 1 << 16;

/**
 * True when a read loop may stop without one more read to see end of file:
 * the last read came back short and at least the `fstat` size has been read.
 * (A short read alone is not enough: FUSE and network file systems may return
 * one mid-file, and stopping there would truncate an edit.)
 */
export function reachedEnd(bytesRead: number, requested: number, total: number, size: number): boolean {
  return bytesRead === 0 || (bytesRead < requested && total >= size);
}

/**
 * Reads what is in the pinned target: its hash always (streamed, bounded
 * memory), its bytes only with `keepBytes`, which refuses files over
 * `maxBytes` with `FS_FILE_TOO_LARGE`. Reads through the descriptor the
 * check opened, never by name.
 */
export async function readCurrent(
  pinned: PinnedTarget,
  real: string,
  options: { readonly keepBytes: boolean; readonly maxBytes: number; readonly signal: AbortSignal },
): Promise<CurrentFile> {
  const opened = pinned.file;
  if (opened === undefined) return { exists: false };
  if (options.keepBytes && opened.size > options.maxBytes) {
    throw fsError(FsErrorCode.FILE_TOO_LARGE, `${real} is ${opened.size} bytes, more than the ${options.maxBytes} bytes an edit may load`, {
      path: real,
      size: opened.size,
      limit: options.maxBytes,
    });
  }
  try {
    const hash = createHash('sha256');
    const chunks: Buffer[] = [];
    let total = 0;
    // A small file is read by one direct call into a buffer one byte longer than its size, so the
    // short read proves the end; should it have grown since the fstat, the rest is read in chunks.
    let direct = opened.size < directIoBytes;
    let length = direct ? opened.size + 1 : chunkSize;
    let buffer = Buffer.allocUnsafe(length);
    for (;;) {
      options.signal.throwIfAborted();
      const bytesRead = direct ? readSync(opened.fd, buffer, 0, length, null) : await readChunk(opened.fd, buffer, length);
      const chunk = buffer.subarray(0, bytesRead);
      hash.update(chunk);
      total += bytesRead;
      if (options.keepBytes) {
        if (total > options.maxBytes) {
          throw fsError(FsErrorCode.FILE_TOO_LARGE, `${real} grew past the ${options.maxBytes} bytes an edit may load`, {
            path: real,
            limit: options.maxBytes,
          });
        }
        if (bytesRead > 0) chunks.push(Buffer.from(chunk));
      }
      if (reachedEnd(bytesRead, length, total, opened.size)) break;
      if (direct) {
        direct = false;
        length = chunkSize;
        buffer = Buffer.allocUnsafe(chunkSize);
      }
    }
    return {
      exists: true,
      sha256: hash.digest('hex'),
      size: total,
      mtimeMs: opened.mtimeMs,
      mode: opened.mode,
      uid: opened.uid,
      gid: opened.gid,
      bytes: options.keepBytes ? Buffer.concat(chunks, total) : undefined,
    };
  } catch (error) {
    throw fromOsError(error, real, 'reading');
  }
}

/** The SHA-256 of bytes, as lowercase hex. */
export function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
