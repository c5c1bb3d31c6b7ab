// @restatedev/restate-sdk 1.17 calls `Promise.withResolvers`, which Node 20 lacks (it came in
// Node 22). This package supports Node >= 20.19, so it installs the standard behaviour when,
// and only when, it is missing.
interface Resolvers<T> {
  promise: Promise<T>;
  resolve: (value: T | PromiseLike<T>) => void;
  reject: (reason?: unknown) => void;
}

const promise = Promise as unknown as { withResolvers?: <T>() => Resolvers<T> };
if (typeof promise.withResolvers !== 'function') {
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value: function withResolvers<T>(this: PromiseConstructor): Resolvers<T> {
      let resolve!: Resolvers<T>['resolve'];
      let reject!: Resolvers<T>['reject'];
      const made = new this<T>((yes, no) => {
        resolve = yes;
        reject = no;
      });
      return { promise: made, resolve, reject };
    },
  });
}
