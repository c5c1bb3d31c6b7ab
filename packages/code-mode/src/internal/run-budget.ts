/** Which limit a slice of interpreter time runs up against first. */
export type Budget = 'cpu' | 'wall';

/**
 * The time a run may spend: a wall-clock deadline for the whole run and a
 * CPU budget summed over the slices it spends inside the interpreter. Each
 * entry into the guest opens a slice that ends at the nearer of the two; the
 * interrupt handler asks whether the open slice is spent.
 */
export class RunBudget {
  readonly #cpuTimeoutMs: number;
  readonly #wallDeadline: number;
  #cpuUsedMs = 0;
  #sliceDeadline = 0;
  #sliceBudget: Budget = 'wall';

  constructor(cpuTimeoutMs: number, timeoutMs: number) {
    this.#cpuTimeoutMs = cpuTimeoutMs;
    this.#wallDeadline = performance.now() + timeoutMs;
  }

  /** Opens a slice and returns when it started, for `close`. */
  open(): number {
    const started = performance.now();
    const wallLeft = this.#wallDeadline - started;
    const cpuLeft = this.#cpuTimeoutMs - this.#cpuUsedMs;
    this.#sliceBudget = cpuLeft < wallLeft ? 'cpu' : 'wall';
    this.#sliceDeadline = started + Math.max(0, Math.min(wallLeft, cpuLeft));
    return started;
  }

  /** Closes the slice opened at `started`, counting its time against the CPU budget. */
  close(started: number): void {
    this.#cpuUsedMs += performance.now() - started;
  }

  /** True once the open slice has passed its deadline. */
  spent(): boolean {
    return performance.now() > this.#sliceDeadline;
  }

  /** The limit the open slice runs up against. */
  get budget(): Budget {
    return this.#sliceBudget;
  }
}
