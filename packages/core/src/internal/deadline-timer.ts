/**
 * A deadline in the timer: what fires when it passes. The timer links its
 * targets into a list through these fields, so scheduling allocates nothing;
 * a target is in at most one timer at a time.
 */
export interface TimerTarget {
  fire(): void;
  /** Set by the timer: when the target fires, in `performance.now()` time. */
  timerAt: number;
  timerPrev: TimerTarget | undefined;
  timerNext: TimerTarget | undefined;
}

/**
 * One Node timer for every deadline of a host. Arming and clearing a timer
 * per call costs more than the rest of a call's dispatch; here a call links
 * its target into a list kept in deadline order (almost always at the end:
 * deadlines grow with time) and unlinks it when it settles, both without
 * allocating. The timer keeps the process alive only while some deadline is
 * pending, which is what guarantees a stuck call still settles; it is let go
 * on the next turn of the event loop with nothing pending, so back-to-back
 * calls do not toggle it each time.
 */
export class DeadlineTimer {
  #first: TimerTarget | undefined;
  #last: TimerTarget | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #held = false;
  #releasing = false;

  /** Fires `target` at `at` (on the `performance.now()` clock). */
  schedule(at: number, target: TimerTarget): void {
    target.timerAt = at;
    let before = this.#last;
    while (before !== undefined && before.timerAt > at) before = before.timerPrev;
    this.#linkAfter(before, target);
    if (at < this.#timerAt) this.#arm(at);
    else if (!this.#held) this.#hold();
  }

  /** Forgets a target that has not fired (nothing happens for one that is not scheduled). */
  cancel(target: TimerTarget): void {
    if (target.timerPrev === undefined && this.#first !== target) return;
    this.#unlink(target);
    if (this.#first === undefined && this.#held && !this.#releasing) {
      this.#releasing = true;
      setImmediate(() => this.#release());
    }
  }

  #linkAfter(before: TimerTarget | undefined, target: TimerTarget): void {
    const after = before === undefined ? this.#first : before.timerNext;
    target.timerPrev = before;
    target.timerNext = after;
    if (before === undefined) this.#first = target;
    else before.timerNext = target;
    if (after === undefined) this.#last = target;
    else after.timerPrev = target;
  }

  #unlink(target: TimerTarget): void {
    const { timerPrev: prev, timerNext: next } = target;
    if (prev === undefined) this.#first = next;
    else prev.timerNext = next;
    if (next === undefined) this.#last = prev;
    else next.timerPrev = prev;
    target.timerPrev = undefined;
    target.timerNext = undefined;
  }

  #hold(): void {
    this.#held = true;
    this.#timer?.ref();
  }

  /** Nothing pending: an earlier deadline's timer may stay armed, but must not keep the process alive. */
  #release(): void {
    this.#releasing = false;
    if (this.#first !== undefined) return;
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
    const due: TimerTarget[] = [];
    for (let target = this.#first; target !== undefined && target.timerAt <= now; target = this.#first) {
      this.#unlink(target);
      due.push(target);
    }
    if (this.#first !== undefined) this.#arm(this.#first.timerAt);
    for (const target of due) target.fire();
  }
}
