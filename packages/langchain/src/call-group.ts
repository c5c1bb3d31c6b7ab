import type { CallRun } from './call-run.js';

/**
 * The calls of one AI message, in the model's order. LangGraph runs each call
 * as its own task, all at once; the group makes them pass the pipeline the
 * way one dsh step would: admitted (tool/call, pre-execute, approval, guards)
 * in order, bodies started in order (`parallel` tools side by side up to
 * `maxParallel`, every other tool alone), results committed in order. A call
 * waiting for a person is skipped: it goes on when it is answered.
 */
export class CallGroup {
  readonly #members: { readonly index: number; readonly run: CallRun }[] = [];
  #waiters: (() => void)[] = [];

  constructor(private readonly maxParallel: number) {}

  /** Adds `run` at its position `index` in the AI message. */
  join(run: CallRun, index: number): void {
    run.group = this;
    this.#members.push({ index, run });
    this.#members.sort((a, b) => a.index - b.index);
    this.changed();
  }

  /** True when every member has settled: the group can be forgotten. */
  settled(): boolean {
    return this.#members.every(({ run }) => run.phase === 'settled');
  }

  /** Wakes every call waiting for its turn. */
  changed(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /** Settles once every earlier call has been admitted (or waits for a person). */
  async turnToAdmit(run: CallRun): Promise<void> {
    while (this.#earlier(run).some(beingAdmitted)) await this.#change();
  }

  /** Settles once `run` may start its body, or when `signal` aborts. */
  async turnToStart(run: CallRun, signal: AbortSignal): Promise<void> {
    while (!signal.aborted && !this.mayStart(run)) await this.#change(signal);
  }

  /** Settles once every earlier call has committed (or waits for a person), or when `signal` aborts. */
  async turnToCommit(run: CallRun, signal: AbortSignal): Promise<void> {
    while (!signal.aborted && !this.mayCommit(run)) await this.#change(signal);
  }

  #earlier(run: CallRun): CallRun[] {
    const at = this.#members.findIndex((member) => member.run === run);
    return at < 0 ? [] : this.#members.slice(0, at).map((member) => member.run);
  }

  /** Whether `run` may start its body now: every earlier call has started (or went to a person), and there is room. */
  mayStart(run: CallRun): boolean {
    // Bodies start in the model's order: an earlier call not yet started holds this one back (unless it went to a person).
    if (this.#earlier(run).some((other) => beingAdmitted(other) || other.phase === 'admitted')) return false;
    let running = 0;
    for (const { run: other } of this.#members) {
      if (other === run || other.phase !== 'running') continue;
      if (!other.parallel || !run.parallel) return false;
      running += 1;
    }
    return running < this.maxParallel;
  }

  /** Whether `run` may commit now: every earlier call has committed or waits for a person. */
  mayCommit(run: CallRun): boolean {
    return this.#earlier(run).every((other) => other.phase === 'settled' || other.phase === 'asking');
  }

  #change(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        signal?.removeEventListener('abort', wake);
        resolve();
      };
      this.#waiters.push(wake);
      signal?.addEventListener('abort', wake, { once: true });
    });
  }
}

function beingAdmitted(run: CallRun): boolean {
  return run.phase === 'queued' || run.phase === 'admitting';
}
