import { randomUUID } from 'node:crypto';
import type { JsonValue } from '@deepseek-ai/dsh-core';
import type { Durable, WaitResult } from './durable.js';
import { DurableError, DurableErrorCode } from './errors.js';

/** One journaled entry of a {@link MemoryJournal}: a step's value, a wait's result, a clock read or an id. */
export interface JournalEntry {
  readonly kind: 'step' | 'wait' | 'now' | 'uuid';
  readonly name: string;
  readonly value: unknown;
}

/**
 * An in-process journal: what an engine would keep, held in memory (or
 * saved by the caller as JSON). Each {@link memoryDurable} over the same
 * journal is a new attempt that replays its entries in order, then appends.
 */
export class MemoryJournal {
  readonly entries: JournalEntry[] = [];
  readonly #posted = new Map<string, JsonValue>();
  readonly #waiters = new Map<string, Set<(value: JsonValue) => void>>();

  /** Posts the value a wait on `key` resolves with; the first post wins. Returns whether it was the first. */
  post(key: string, value: JsonValue): boolean {
    if (this.#posted.has(key)) return false;
    this.#posted.set(key, value);
    for (const wake of this.#waiters.get(key) ?? []) wake(value);
    this.#waiters.delete(key);
    return true;
  }

  /** @internal */
  take(key: string, timeoutMs: number): Promise<WaitResult<JsonValue>> {
    const posted = this.#posted.get(key);
    if (posted !== undefined) return Promise.resolve({ status: 'resolved', value: posted });
    return new Promise((resolve) => {
      const waiters = this.#waiters.get(key) ?? new Set();
      this.#waiters.set(key, waiters);
      const wake = (value: JsonValue) => {
        clearTimeout(timer);
        resolve({ status: 'resolved', value });
      };
      const timer = setTimeout(() => {
        waiters.delete(wake);
        resolve({ status: 'timeout' });
      }, timeoutMs);
      waiters.add(wake);
    });
  }
}

/**
 * A {@link Durable} over an in-process {@link MemoryJournal}: one attempt of
 * a run. Entries replay by position; a step asked under another name than
 * the journal holds there fails with `JOURNAL_MISMATCH`. Useful without an
 * engine (tests, a single process that keeps its journal), and as the
 * reference of what a binding must do.
 */
export function memoryDurable(journal: MemoryJournal): Durable {
  let position = 0;
  async function record<T>(kind: JournalEntry['kind'], name: string, produce: () => Promise<T>): Promise<T> {
    const at = position;
    position += 1;
    const entry = journal.entries[at];
    if (entry !== undefined) {
      if (entry.kind !== kind || entry.name !== name) {
        throw new DurableError(
          DurableErrorCode.JOURNAL_MISMATCH,
          `journal entry ${at} is ${entry.kind} "${entry.name}", but the run asked for ${kind} "${name}"`,
        );
      }
      return entry.value as T;
    }
    const value = await produce();
    journal.entries[at] = { kind, name, value };
    return value;
  }
  return {
    attempt: randomUUID(),
    step: (name, fn) => record('step', name, fn),
    wait: <T>(key: string, timeoutMs: number) => record('wait', key, () => journal.take(key, timeoutMs)) as Promise<WaitResult<T>>,
    sleep: async (ms) => {
      const until = await record('now', 'sleep', async () => Date.now() + ms);
      const left = until - Date.now();
      if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
    },
    now: () => record('now', 'now', async () => Date.now()),
    uuid: () => record('uuid', 'uuid', async () => randomUUID()),
  };
}
