import { AsyncLocalStorage } from 'node:async_hooks';

const store = new AsyncLocalStorage<number>();
/** Runs in progress in this process, across every `codeMode` plugin. */
let active = 0;

/**
 * How deep the current code runs inside `run_code` programs, however it got
 * there: each sub-call runs within its run's depth, and the store follows
 * every await below it, into tools that start steps of their own. Shared by
 * every `codeMode` plugin in the process, so nesting through another host
 * counts too.
 *
 * On Node 20 and 22 a storage in use turns on promise hooks for the whole
 * process, which slows every promise of the host. So the store is switched
 * off whenever no run is in progress (`hold`), not left on after the first.
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
  /** Marks a run as in progress; the returned release (idempotent) switches the store off after the last run. */
  hold(): () => void {
    active += 1;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      active -= 1;
      if (active === 0) store.disable();
    };
  },
};
