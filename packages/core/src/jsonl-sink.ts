import { type FileHandle, open } from 'node:fs/promises';
import { stringify } from 'lossless-json';
import type { AnySessionEvent, EventSink } from './events.js';

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
  readonly line: string;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Appends each event as one line of lossless JSON (bigints stay exact) to
 * `path`, creating it if needed. Lines are written in order, batched while a
 * write is in flight; `append` settles once its line is written.
 */
export function jsonlSink(path: string, options: JsonlSinkOptions = {}): JsonlSink {
  let handle: Promise<FileHandle> | undefined;
  let queue: Pending[] = [];
  let writing: Promise<void> | undefined;
  let closed = false;

  const drain = async (): Promise<void> => {
    handle ??= open(path, 'a');
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        const file = await handle;
        await file.write(batch.map((p) => p.line).join(''));
        if (options.sync === true) await file.datasync();
        for (const p of batch) p.resolve();
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
        queue.push({ line, resolve, reject });
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
