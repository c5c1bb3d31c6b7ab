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
 * One Node timer for every deadline of a host. Arming and clearing a timer
 * per call costs more than the rest of a call's dispatch; here a call adds
 * an entry (almost always at the end: deadlines grow with time) and removes
 * it when it settles. The timer keeps the process alive only while some
 * deadline is pending, which is what guarantees a stuck call still settles;
 * it is let go on the next turn of the event loop with nothing pending, so
 * back-to-back calls do not toggle it each time.
 */
export class DeadlineTimer {
  readonly #entries: TimerEntry[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #held = false;
  #releasing = false;

  /** Fires `target` at `at` (on the `performance.now()` clock). */
  schedule(at: number, target: TimerTarget): TimerEntry {
    const entry: TimerEntry = { at, target };
    const entries = this.#entries;
    const last = entries[entries.length - 1];
    if (last === undefined || last.at <= at) entries.push(entry);
    else {
      let index = entries.length - 1;
      while (index > 0 && (entries[index - 1] as TimerEntry).at > at) index -= 1;
      entries.splice(index, 0, entry);
    }
    if (at < this.#timerAt) this.#arm(at);
    else if (!this.#held) this.#hold();
    return entry;
  }

  /** Forgets an entry that has not fired. */
  cancel(entry: TimerEntry): void {
    const entries = this.#entries;
    // Calls mostly settle in the order they started: the entry is usually the last or the first.
    if (entries[entries.length - 1] === entry) entries.pop();
    else if (entries[0] === entry) entries.shift();
    else {
      const index = entries.indexOf(entry);
      if (index !== -1) entries.splice(index, 1);
    }
    if (entries.length === 0 && this.#held && !this.#releasing) {
      this.#releasing = true;
      setImmediate(() => this.#release());
    }
  }

  #hold(): void {
    this.#held = true;
    this.#timer?.ref();
  }

  /** Nothing pending: an earlier deadline's timer may stay armed, but must not keep the process alive. */
  #release(): void {
    this.#releasing = false;
    if (this.#entries.length > 0) return;
    this.#held = false;
    this.#timer?.unref();
  }

  #arm(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(() => this.#fire(), Math.max(0, at - performance.now()));
    this.#held = true;
  }

  #fire(): void {
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    this.#held = false;
    const now = performance.now();
    const due: TimerEntry[] = [];
    while (this.#entries.length > 0 && (this.#entries[0] as TimerEntry).at <= now) due.push(this.#entries.shift() as TimerEntry);
    const next = this.#entries[0];
    if (next !== undefined) this.#arm(next.at);
    for (const entry of due) entry.target.fire();
  }
}
