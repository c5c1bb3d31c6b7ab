/** A promise with its resolve function beside it, settled at most once. */
export interface Deferred<T> {
  readonly promise: Promise<T>;
  readonly settled: boolean;
  resolve(value: T): void;
}

/** Makes a {@link Deferred}; a second `resolve` is ignored. */
export function deferred<T>(): Deferred<T> {
  let settle!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    settle = resolve;
  });
  const d = {
    promise,
    settled: false,
    resolve(value: T) {
      if (d.settled) return;
      d.settled = true;
      settle(value);
    },
  };
  return d;
}
