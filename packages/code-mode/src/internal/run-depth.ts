import { AsyncLocalStorage } from 'node:async_hooks';

const store = new AsyncLocalStorage<number>();

/**
 * How deep the current code runs inside `run_code` programs, however it got
 * there: each sub-call runs within its run's depth, and the store follows
 * every await below it, into tools that start steps of their own. Shared by
 * every `codeMode` plugin in the process, so nesting through another host
 * counts too.
 */
export const runDepth = {
  /** 0 outside any program; n inside a sub-call of a run nested n deep. */
  current(): number {
    return store.getStore() ?? 0;
  },
  /** Runs `fn` (a sub-call) at `depth`. */
  within<T>(depth: number, fn: () => T): T {
    return store.run(depth, fn);
  },
};
