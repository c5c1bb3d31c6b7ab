/** A promise with its resolve function beside it, settled at most once (a second `resolve` is ignored). */
export class Deferred<T> {
  readonly promise: Promise<T>;
  #settled = false;
  #resolve!: (value: T) => void;

  constructor() {
    // A class, not a closure pair: every SDK call makes several, and one executor closure is all this costs.
    this.promise = new Promise<T>((resolve) => {
      this.#resolve = resolve;
    });
  }

  get settled(): boolean {
    return this.#settled;
  }

  resolve(value: T): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#resolve(value);
  }
}
