import { type JsonlSink, type JsonlSinkOptions, jsonlSink } from './jsonl-sink.js';
import { acquireSessionLock, type SessionLock } from './session-lock.js';

/** A JSONL sink that holds its log's one-writer lock until it is closed. */
export interface LockedJsonlSink extends JsonlSink {
  /** The lock, released by `close()`. */
  readonly lock: SessionLock;
}

/**
 * Takes the one-writer lock of the session log at `path` (throwing
 * `SESSION_LOCKED` while another live process or host writes it), then opens
 * a {@link jsonlSink} on it. `close()` flushes, closes and releases the lock;
 * a process that dies leaves a stale lock that the next `openJsonlSink` takes over.
 * Use it for a log that may be resumed: `resumeSession` needs it.
 */
export async function openJsonlSink(path: string, options: JsonlSinkOptions = {}): Promise<LockedJsonlSink> {
  const lock = await acquireSessionLock(path);
  const sink = jsonlSink(path, options);
  return {
    path,
    lock,
    append: (event) => sink.append(event),
    flush: async () => {
      await sink.flush?.();
    },
    async close() {
      try {
        await sink.close?.();
      } finally {
        await lock.release();
      }
    },
  };
}
