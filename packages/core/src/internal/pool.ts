/**
 * Counts running bodies: `slot()` waits for room under the limit, `drain()`
 * for none at all. Waiters are served in the order they came.
 */
export class Pool {
  readonly #limit: number;
  #running = 0;
  #waiters: (() => void)[] | undefined;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Resolves once fewer than `limit` bodies run. */
  slot(): Promise<void> | undefined {
    if (this.#running < this.#limit) return undefined;
    return new Promise((resolve) => {
      this.#waiters ??= [];
      this.#waiters.push(resolve);
    });
  }

  /** Resolves once no body runs. */
  drain(): Promise<void> | undefined {
    if (this.#running === 0) return undefined;
    return new Promise((resolve) => {
      const check = (): void => {
        if (this.#running === 0) {
          resolve();
          return;
        }
        this.#waiters ??= [];
        this.#waiters.push(check);
      };
      check();
    });
  }

  /** Runs `work` holding a place in the pool until it settles. */
  run<T>(work: () => Promise<T>): Promise<T> {
    this.#running += 1;
    return work().finally(() => {
      this.#running -= 1;
      const waiting = this.#waiters;
      this.#waiters = undefined;
      for (const wake of waiting ?? []) wake();
    });
  }
}
