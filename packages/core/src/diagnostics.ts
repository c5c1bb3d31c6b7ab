/**
 * Something that went wrong without changing a call's outcome: an observer
 * that threw, a sink that failed, a body that settled after its deadline.
 * Recorded so nothing fails silently, never fed to the model.
 */
export interface Diagnostic {
  readonly code: string;
  readonly message: string;
  /** What raised it: `tap:<hook>:<name>`, `observer:<name>`, `sink`, `presenter:<tool>`, … */
  readonly source: string;
  readonly call?: string;
  readonly at: string;
}

/** A bounded record of diagnostics with subscribers. */
export class Diagnostics {
  readonly #items: Diagnostic[] = [];
  readonly #listeners = new Set<(d: Diagnostic) => void>();
  readonly #limit: number;

  constructor(limit = 1000) {
    this.#limit = limit;
  }

  /** Records a diagnostic and tells subscribers; a throwing subscriber is ignored. */
  record(code: string, source: string, message: string, call?: string): void {
    const item: Diagnostic = Object.freeze(
      call === undefined
        ? { code, message, source, at: new Date().toISOString() }
        : { code, message, source, call, at: new Date().toISOString() },
    );
    this.#items.push(item);
    if (this.#items.length > this.#limit) this.#items.splice(0, this.#items.length - this.#limit);
    for (const listener of this.#listeners) {
      try {
        listener(item);
      } catch {
        // A diagnostics listener has nowhere to report its own failure.
      }
    }
  }

  /** The retained diagnostics, oldest first. */
  list(): readonly Diagnostic[] {
    return this.#items.slice();
  }

  /** Calls `listener` for each new diagnostic; returns the way to stop. */
  subscribe(listener: (d: Diagnostic) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
