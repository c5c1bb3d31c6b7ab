/** What the timer calls when a deadline passes. */
export interface TimerTarget {
  fire(): void;
}

/** A deadline waiting in the timer; its target fires once when it passes, unless cancelled first. */
export interface TimerEntry {
  readonly at: number;
  readonly target: TimerTarget;
}

/**
 * One Node timer for every deadline of a plugin instance. Arming and clearing
 * a timer per call costs more than the rest of the policy; here a call adds
 * an entry (almost always at the end: deadlines grow with time) and removes
 * it when it settles. The timer keeps the process alive only while some
 * deadline is pending, which is what guarantees a stuck call still settles.
 */
export class DeadlineTimer {
  readonly #entries: TimerEntry[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = Number.POSITIVE_INFINITY;

  /** Fires `target` at `at` (on the `performance.now()` clock). */
  schedule(at: number, target: TimerTarget): TimerEntry {
    const entry: TimerEntry = { at, target };
    let index = this.#entries.length;
    while (index > 0 && (this.#entries[index - 1] as TimerEntry).at > at) index -= 1;
    this.#entries.splice(index, 0, entry);
    if (at < this.#timerAt) this.#arm(at);
    else this.#timer?.ref();
    return entry;
  }

  /** Forgets an entry that has not fired. */
  cancel(entry: TimerEntry): void {
    const index = this.#entries.indexOf(entry);
    if (index !== -1) this.#entries.splice(index, 1);
    // Nothing pending: an earlier deadline's timer may stay, but must not hold the process.
    if (this.#entries.length === 0) this.#timer?.unref();
  }

  #arm(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(() => this.#fire(), Math.max(0, at - performance.now()));
  }

  #fire(): void {
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    const now = performance.now();
    const due: TimerEntry[] = [];
    while (this.#entries.length > 0 && (this.#entries[0] as TimerEntry).at <= now) due.push(this.#entries.shift() as TimerEntry);
    const next = this.#entries[0];
    if (next !== undefined) this.#arm(next.at);
    for (const entry of due) entry.target.fire();
  }
}
