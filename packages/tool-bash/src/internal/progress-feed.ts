import type { JsonValue } from '@deepseek-ai/dsh-core';
import type { OutputProgress } from '../result.js';
import type { StreamName } from './output-capture.js';

/**
 * Batches live output into at most one update per stream per interval, each
 * at most `maxChars` long (the newest text wins), so a flood of output cannot
 * flood the UI or its memory.
 */
export class ProgressFeed {
  readonly #send: (update: JsonValue) => void;
  readonly #intervalMs: number;
  readonly #maxChars: number;
  readonly #pending = new Map<StreamName, { text: string; skipped: number }>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(send: (update: JsonValue) => void, intervalMs: number, maxChars: number) {
    this.#send = send;
    this.#intervalMs = intervalMs;
    this.#maxChars = maxChars;
  }

  push(stream: StreamName, text: string): void {
    if (this.#closed) return;
    const entry = this.#pending.get(stream) ?? { text: '', skipped: 0 };
    entry.text += text;
    if (entry.text.length > this.#maxChars) {
      const drop = entry.text.length - this.#maxChars;
      entry.skipped += drop;
      entry.text = entry.text.slice(drop);
    }
    this.#pending.set(stream, entry);
    if (this.#timer === undefined) this.#timer = setTimeout(() => this.flush(), this.#intervalMs);
  }

  /** Sends what is pending now. */
  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const [stream, { text, skipped }] of this.#pending) {
      const update: OutputProgress = skipped > 0 ? { type: 'output', stream, text, skipped } : { type: 'output', stream, text };
      this.#send(update);
    }
    this.#pending.clear();
  }

  /** Sends what is pending and stops taking more. */
  close(): void {
    this.flush();
    this.#closed = true;
  }
}
