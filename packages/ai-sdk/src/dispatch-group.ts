import type { Cancellation } from '@deepseek-ai/dsh-core';
import type { CallRun } from './call-run.js';

/**
 * The calls of one SDK step, in the model's order. The SDK starts their
 * `execute`s together (`Promise.all`); the group lets their bodies start the
 * way a dsh step would: in order, parallel tools (`parallel: true`) side by
 * side up to `maxParallel`, every other tool alone. Results are committed in
 * the same order (see `predecessors`).
 */
export class DispatchGroup {
  readonly #members: CallRun[] = [];
  readonly #maxParallel: number;
  #waiters: (() => void)[] = [];

  constructor(maxParallel: number) {
    this.#maxParallel = maxParallel;
  }

  get members(): readonly CallRun[] {
    return this.#members;
  }

  join(run: CallRun): void {
    run.group = this;
    this.#members.push(run);
    this.changed();
  }

  /** A call that went to the user for approval leaves: it runs in the step where the SDK executes it. */
  leave(run: CallRun): void {
    const index = this.#members.indexOf(run);
    if (index >= 0) this.#members.splice(index, 1);
    if (run.group === this) run.group = undefined;
    this.changed();
  }

  /** Wakes every call waiting for its turn: some member changed phase. */
  changed(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /** Settles with `true` once `run` may start its body, or `false` when `cancellation` aborts first. */
  async turn(run: CallRun, cancellation: Cancellation): Promise<boolean> {
    while (!this.mayStart(run)) {
      if (cancellation.aborted) return false;
      await new Promise<void>((resolve) => {
        let stopFollowing: (() => void) | undefined;
        const wake = () => {
          stopFollowing?.();
          resolve();
        };
        this.#waiters.push(wake);
        stopFollowing = cancellation.onAbort(wake);
      });
    }
    return !cancellation.aborted;
  }

  /** The members before `run` whose results must be committed before its own. */
  predecessors(run: CallRun): CallRun[] {
    const index = this.#members.indexOf(run);
    return index < 0 ? [] : this.#members.slice(0, index);
  }

  /** Whether `run` may start its body now: every earlier call has started, and there is room beside the running ones. */
  mayStart(run: CallRun): boolean {
    let running = 0;
    for (const member of this.#members) {
      if (member === run) break;
      // Bodies start in the model's order: an earlier call that has not started holds this one back.
      if (member.phase === 'admitting' || member.phase === 'held') return false;
      if (member.phase === 'running') {
        if (!member.parallel || !run.parallel) return false;
        running += 1;
      }
    }
    return running < this.#maxParallel;
  }
}
