import { createHash } from 'node:crypto';
import { FsErrorCode, fromOsError, fsError } from '../errors.js';
import type { ResolvedPath, Workspace } from '../workspace.js';
import { openRegular } from './open-file.js';

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
 * Reads what is at a resolved path: its hash always (streamed, bounded
 * memory), its bytes only with `keepBytes`, which refuses files over
 * `maxBytes` with `FS_FILE_TOO_LARGE`.
 */
export async function readCurrent(
  workspace: Workspace,
  target: ResolvedPath,
  options: { readonly keepBytes: boolean; readonly maxBytes: number; readonly signal: AbortSignal },
): Promise<CurrentFile> {
  const opened = await openRegular(workspace, target);
  if (opened === undefined) return { exists: false };
  const { handle } = opened;
  try {
    if (options.keepBytes && opened.size > options.maxBytes) {
      throw fsError(
        FsErrorCode.FILE_TOO_LARGE,
        `${target.real} is ${opened.size} bytes, more than the ${options.maxBytes} bytes an edit may load`,
        { path: target.real, size: opened.size, limit: options.maxBytes },
      );
    }
    const hash = createHash('sha256');
    const chunks: Buffer[] = [];
    let total = 0;
    const buffer = Buffer.allocUnsafe(chunkSize);
    for (;;) {
      options.signal.throwIfAborted();
      const { bytesRead } = await handle.read(buffer, 0, chunkSize, null);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      hash.update(chunk);
      total += bytesRead;
      if (options.keepBytes) {
        if (total > options.maxBytes) {
          throw fsError(FsErrorCode.FILE_TOO_LARGE, `${target.real} grew past the ${options.maxBytes} bytes an edit may load`, {
            path: target.real,
            limit: options.maxBytes,
          });
        }
        chunks.push(Buffer.from(chunk));
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
    throw fromOsError(error, target.real, 'reading');
  } finally {
    await handle.close();
  }
}

/** The SHA-256 of bytes, as lowercase hex. */
export function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
