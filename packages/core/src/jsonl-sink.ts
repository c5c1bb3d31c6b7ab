import { type FileHandle, open } from 'node:fs/promises';
import { stringify } from 'lossless-json';
import { DshError, ErrorCode } from './errors.js';
import type { AnySessionEvent, EventSink } from './events.js';
import { readLogTail } from './internal/log-tail.js';

/** Options of the JSONL sink. */
export interface JsonlSinkOptions {
  /** `fdatasync` after each batch, so events survive a power loss, not just a crash: off by default. */
  readonly sync?: boolean;
}

/** A sink that also tells where it writes. */
export interface JsonlSink extends EventSink {
  readonly path: string;
}

interface Pending {
  readonly seq: number;
  readonly line: string;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

function refusal(path: string, seq: number, why: string): DshError {
  return new DshError(ErrorCode.SINK_FAILED, `${path}: event ${seq} not written: ${why}`, { data: { path, seq } });
}

/**
 * Appends each event as one line of lossless JSON (bigints stay exact) to
 * `path`, creating it if needed. Lines are written in order, batched while a
 * write is in flight; `append` settles once its line is written.
 *
 * It never writes a `seq` gap: each event must follow the last one written,
 * and a first event after seq 1 (a resume's) must follow the file's last
 * event, in a file that does not end in a torn line. An event that does not
 * is refused with `SINK_FAILED` and not written; so is every event after one
 * that failed to be written.
 */
export function jsonlSink(path: string, options: JsonlSinkOptions = {}): JsonlSink {
  let handle: Promise<FileHandle> | undefined;
  let queue: Pending[] = [];
  let writing: Promise<void> | undefined;
  let closed = false;
  // The seq of the last event written; unknown until the first write (a log that starts at seq 1 needs no look).
  let lastSeq: number | undefined;

  /** Why `seq` may not be written next, or undefined when it may. */
  const gapBefore = (seq: number): string | undefined => {
    const last = lastSeq ?? 0;
    return seq === last + 1
      ? undefined
      : `it would follow ${last === 0 ? 'no event' : `seq ${last}`}, and a session log's seq never has a gap`;
  };

  /** Learns where the file ends, once, when the sink's first event continues a log. */
  const continuing = async (): Promise<string | undefined> => {
    const tail = await readLogTail(path);
    // A line appended to a torn one would merge with it: resumeSession terminates it first.
    if (!tail.endsWithNewline) return 'the log ends in a torn line (resumeSession terminates and records it)';
    lastSeq = tail.seq;
    return undefined;
  };

  const drain = async (): Promise<void> => {
    handle ??= open(path, 'a');
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        const file = await handle;
        const first = batch[0]?.seq ?? 0;
        const why = (lastSeq === undefined && first !== 1 ? await continuing() : undefined) ?? gapBefore(first);
        // The EventLog appends in seq order, so a batch that starts right runs on without a gap.
        let count = why === undefined ? 1 : 0;
        while (count > 0 && count < batch.length && batch[count]?.seq === first + count) count += 1;
        const written = count === batch.length ? batch : batch.slice(0, count);
        for (let i = count; i < batch.length; i++) {
          const p = batch[i] as Pending;
          p.reject(refusal(path, p.seq, why ?? 'an event before it is missing'));
        }
        if (count === 0) continue;
        await file.write(written.map((p) => p.line).join(''));
        if (options.sync === true) await file.datasync();
        lastSeq = first + count - 1;
        for (const p of written) p.resolve();
      } catch (error) {
        for (const p of batch) p.reject(error);
      }
    }
  };

  const kick = (): Promise<void> => {
    writing ??= drain().finally(() => {
      writing = undefined;
      if (queue.length > 0) void kick();
    });
    return writing;
  };

  return {
    path,
    append(event: AnySessionEvent): Promise<void> {
      if (closed) return Promise.reject(new Error(`the JSONL sink for ${path} is closed`));
      const line = `${stringify(event)}\n`;
      return new Promise<void>((resolve, reject) => {
        queue.push({ seq: event.seq, line, resolve, reject });
        void kick();
      });
    },
    async flush(): Promise<void> {
      while (writing !== undefined) await writing;
    },
    async close(): Promise<void> {
      closed = true;
      while (writing !== undefined) await writing;
      if (handle !== undefined) await (await handle).close();
    },
  };
}
