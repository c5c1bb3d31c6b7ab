import { stat } from 'node:fs/promises';
import picomatch from 'picomatch';
import { FsErrorCode, fromOsError, fsError } from '../errors.js';

/** What is at a resolved path for a search: a directory to walk, or one file. */
export async function kindOf(real: string): Promise<'directory' | 'file'> {
  try {
    const info = await stat(real);
    if (info.isDirectory()) return 'directory';
    if (info.isFile()) return 'file';
  } catch (error) {
    throw fromOsError(error, real, 'searching');
  }
  throw fsError(FsErrorCode.SPECIAL_FILE, `${real} is a FIFO, socket or device, not a file or directory`, { path: real });
}

/**
 * A glob matcher (picomatch, dotfiles included). A pattern without `/`
 * matches a file's name at any depth, as ripgrep's `--glob` does.
 */
export function globMatcher(pattern: string): (relative: string) => boolean {
  try {
    const match = picomatch(pattern, { dot: true, basename: !pattern.includes('/') });
    return (relative) => match(relative);
  } catch (error) {
    throw fsError(
      FsErrorCode.INVALID_GLOB,
      `the glob ${JSON.stringify(pattern)} is not valid: ${error instanceof Error ? error.message : String(error)}`,
      {
        glob: pattern,
      },
    );
  }
}

/** Lets other work run between batches of synchronous file reads, and honours the signal. */
export async function breathe(signal: AbortSignal): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  signal.throwIfAborted();
}
