import type { ModelToolCall } from '../model.js';

/**
 * The ids calls are logged under. Without a prefix they are the provider's.
 * With one, `<prefix><n>` counting from 0 across the run; a provider id
 * repeated within a turn maps to one logged id, so core still refuses both
 * calls as duplicates.
 */
export class CallIds {
  readonly #prefix: string | undefined;
  #next = 0;

  constructor(prefix: string | undefined) {
    this.#prefix = prefix;
  }

  forTurn(calls: readonly ModelToolCall[]): string[] {
    const prefix = this.#prefix;
    if (prefix === undefined) return calls.map((c) => c.id);
    const seen = new Map<string, string>();
    return calls.map((c) => {
      let id = seen.get(c.id);
      if (id === undefined) {
        id = `${prefix}${this.#next++}`;
        seen.set(c.id, id);
      }
      return id;
    });
  }
}
