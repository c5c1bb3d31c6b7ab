import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { descriptorPath } from '../internal/pinned-dir.js';

/** One line that matched, with its context. */
export interface FileMatches {
  /** 1-based numbers of the matching lines. */
  readonly matched: readonly number[];
  /** Every line of the file (only kept when context or content is wanted). */
  readonly lines: readonly string[] | undefined;
}

/** Why a file was not searched. */
export type Skip = 'binary' | 'too-large' | 'unreadable';

let buffer = Buffer.allocUnsafe(1 << 20);

/**
 * Reads a file synchronously into a reused buffer (many small files are the
 * common case, and a few syscalls each beat a thread-pool round trip),
 * refusing links without following them and never blocking on a FIFO (the
 * walk only offers regular files; a swapped-in directory fails to read).
 * The opened descriptor must be a regular file at exactly `file` (a parent
 * swapped for a symlink during the search is caught), with one hard link
 * unless `hardLinkAllowed`; otherwise the file is skipped as unreadable.
 */
export function readSmallFile(file: string, maxBytes: number, hardLinkAllowed: (real: string) => boolean): Buffer | Skip {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return 'unreadable';
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile() || (info.nlink > 1 && !hardLinkAllowed(file)) || descriptorPath(fd) !== file) return 'unreadable';
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length >= maxBytes) return 'too-large';
        const bigger = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
        buffer.copy(bigger, 0, 0, length);
        buffer = bigger;
      }
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
      if (length > maxBytes) return 'too-large';
    }
    return buffer.subarray(0, length);
  } catch {
    return 'unreadable';
  } finally {
    closeSync(fd);
  }
}

const decoder = new TextDecoder('utf-8');

/**
 * The lines of `bytes` that `regex` matches (the text is decoded leniently,
 * a line's trailing CR is not part of it). `prefilter`, when given, is a
 * byte string every match contains: a file without it is not decoded.
 */
export function searchBytes(bytes: Buffer, regex: RegExp, prefilter: Buffer | undefined, keepLines: boolean): FileMatches | undefined {
  if (prefilter !== undefined && bytes.indexOf(prefilter) === -1) return undefined;
  const text = decoder.decode(bytes);
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const matched: number[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    let line = lines[i] as string;
    if (line.endsWith('\r')) {
      line = line.slice(0, -1);
      lines[i] = line;
    }
    if (regex.test(line)) matched.push(i + 1);
  }
  if (matched.length === 0) return undefined;
  return { matched, lines: keepLines ? lines : undefined };
}
