import type { ThreadClock } from './thread-clock.js';

/**
 * The CPU budget of one run, measured as the guest worker's thread CPU time
 * (see {@link ThreadClock}), so a loaded machine does not eat into it. The
 * worker only computes while the host waits for its report (a "busy"
 * stretch); the clock is read by a host timer, never per call. A thread's
 * CPU time cannot grow faster than wall time, so the timer is set to fire
 * when the remaining budget could at the earliest be spent, and is read
 * again then: the host learns of an exhausted budget within one timer delay.
 */
export class RunBudget {
  readonly #budgetMs: number;
  readonly #onSpent: () => void;
  #clock: ThreadClock | undefined;
  #baseline = 0;
  #remaining: number;
  /** Wall time the worker was busy since the clock was last read: an upper bound of the CPU time not yet seen. */
  #unread = 0;
  #busySince: number | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(budgetMs: number, onSpent: () => void) {
    this.#budgetMs = budgetMs;
    this.#remaining = budgetMs;
    this.#onSpent = onSpent;
  }

  /** Starts counting from `baseline`, a reading of the clock taken while the thread was idle (its current one by default). */
  async start(clock: ThreadClock, baseline?: Promise<number>): Promise<void> {
    this.#clock = clock;
    this.#baseline = await (baseline ?? clock.read());
  }

  /** The CPU time used so far, read now. */
  async used(): Promise<number> {
    return this.#clock === undefined ? 0 : (await this.#clock.read()) - this.#baseline;
  }

  /** The worker starts computing (the host sent it a message that enters the guest). */
  busyStart(): void {
    this.#busySince = performance.now();
    this.#arm();
  }

  /** The worker reported back: it is idle until the next message. */
  busyEnd(): void {
    if (this.#busySince !== undefined) this.#unread += performance.now() - this.#busySince;
    this.#busySince = undefined;
  }

  /** Stops the timer for good. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(): void {
    if (this.#timer !== undefined || this.#closed) return;
    // An armed timer is never late: since it was set, unseen CPU time has grown at most as fast as wall time.
    const delay = Math.max(0, this.#remaining - this.#unread);
    this.#timer = setTimeout(() => void this.#check(), Math.ceil(delay));
  }

  async #check(): Promise<void> {
    const now = performance.now();
    const used = await this.used();
    this.#timer = undefined;
    if (this.#closed) return;
    this.#remaining = this.#budgetMs - used;
    this.#unread = 0;
    if (this.#busySince !== undefined) this.#busySince = now;
    if (this.#remaining <= 0) {
      this.close();
      this.#onSpent();
    } else if (this.#busySince !== undefined) {
      this.#arm();
    }
  }
}
