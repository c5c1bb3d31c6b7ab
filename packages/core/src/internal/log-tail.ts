import { type FileHandle, open } from 'node:fs/promises';

/** Where a JSONL session log ends, as a sink that continues it needs to know. */
export interface LogTail {
  /** The `seq` of the last whole event line; 0 when there is none (no file, an empty one). */
  readonly seq: number;
  /** False when the file ends in a torn line (bytes after its last newline). */
  readonly endsWithNewline: boolean;
}

const firstChunkBytes = 64 * 1024;

/**
 * Reads the end of the JSONL log at `path`, backwards, until it finds the
 * last whole line that is an event. Lines after it that are not events (a
 * torn line a resume terminated) are passed over; bytes after the last
 * newline are a torn line and never count.
 */
export async function readLogTail(path: string): Promise<LogTail> {
  const file = await openIfExists(path);
  if (file === undefined) return { seq: 0, endsWithNewline: true };
  try {
    let pos = (await file.stat()).size;
    if (pos === 0) return { seq: 0, endsWithNewline: true };
    // The bytes [pos, pos + rest.length) not judged yet; `ended` once a newline closed the line at rest's end.
    let rest = Buffer.alloc(0);
    let ended = false;
    let endsWithNewline: boolean | undefined;
    for (;;) {
      for (let nl = rest.lastIndexOf(0x0a); nl >= 0; nl = rest.lastIndexOf(0x0a)) {
        endsWithNewline ??= nl === rest.length - 1;
        const seq = ended ? seqOf(rest.subarray(nl + 1)) : undefined;
        if (seq !== undefined) return { seq, endsWithNewline };
        ended = true;
        rest = rest.subarray(0, nl);
      }
      if (pos === 0) break;
      // Doubling the reads keeps a long last line linear to read.
      const length = Math.min(pos, Math.max(firstChunkBytes, rest.length));
      pos -= length;
      const chunk = Buffer.alloc(length);
      await file.read(chunk, 0, length, pos);
      rest = Buffer.concat([chunk, rest]);
    }
    return { seq: (ended ? seqOf(rest) : undefined) ?? 0, endsWithNewline: endsWithNewline ?? false };
  } finally {
    await file.close();
  }
}

async function openIfExists(path: string): Promise<FileHandle | undefined> {
  try {
    return await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function seqOf(line: Buffer): number | undefined {
  try {
    const value = JSON.parse(line.toString('utf8')) as { seq?: unknown; type?: unknown } | null;
    return typeof value?.seq === 'number' && typeof value.type === 'string' ? value.seq : undefined;
  } catch {
    return undefined;
  }
}
