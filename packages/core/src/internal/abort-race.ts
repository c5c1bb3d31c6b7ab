import type { CallRun } from '../call-run.js';
import type { AbortFollower, Cancellation } from '../cancellation.js';
import { ErrorCode, messageOf } from '../errors.js';
import { lateSettlement } from '../late-settlement.js';
import { type DispatchOutcome, errorOutcome } from '../outcome.js';
import type { Runtime } from '../runtime.js';
import type { TimerTarget } from './deadline-timer.js';

/**
 * Races `work` (the chain under a cancellation, which never rejects) against
 * that cancellation: its deadline, when it has one, aborts it; once aborted,
 * the call settles with the cancellation's `outcomeOnAbort` as soon as the
 * work settles or the grace period ends. A later settlement is recorded as
 * `LATE_SETTLEMENT` and logged as `tool/late-settlement`, never delivered.
 */
export function raceAbort(rt: Runtime, run: CallRun, work: Promise<DispatchOutcome>, cancellation: Cancellation): Promise<DispatchOutcome> {
  return new Promise<DispatchOutcome>((resolve) => {
    new AbortRace(rt, run, cancellation, resolve).watch(work);
  });
}

/** One race; a class, so that a call costs one object and one small closure. */
class AbortRace implements AbortFollower, TimerTarget {
  timerAt = 0;
  timerPrev: TimerTarget | undefined;
  timerNext: TimerTarget | undefined;
  readonly #rt: Runtime;
  readonly #run: CallRun;
  readonly #cancellation: Cancellation;
  readonly #resolve: (outcome: DispatchOutcome) => void;
  #scheduled = false;
  #work: Promise<DispatchOutcome> | undefined;
  #grace: ReturnType<typeof setTimeout> | undefined;
  #done = false;
  #startedAt = 0;

  constructor(rt: Runtime, run: CallRun, cancellation: Cancellation, resolve: (outcome: DispatchOutcome) => void) {
    this.#rt = rt;
    this.#run = run;
    this.#cancellation = cancellation;
    this.#resolve = resolve;
  }

  watch(work: Promise<DispatchOutcome>): void {
    this.#startedAt = Date.now();
    const cancellation = this.#cancellation;
    if (cancellation.deadline !== undefined && !cancellation.aborted) {
      this.#rt.deadlines.schedule(cancellation.deadline, this);
      this.#scheduled = true;
    }
    this.#work = work;
    cancellation.follow(this);
    void work.then((outcome) => this.#settled(outcome));
  }

  /** The deadline passed (called by the host's deadline timer). */
  fire(): void {
    this.#scheduled = false;
    this.#cancellation.expire();
  }

  /** The cancellation aborted (called by it): the grace period starts. */
  abort(): void {
    const work = this.#work;
    if (this.#done || work === undefined) return;
    this.#disarm();
    const cancellation = this.#cancellation;
    const graceMs = cancellation.graceMs ?? this.#rt.limits.abortGraceMs;
    this.#grace = setTimeout(() => {
      if (this.#done) return;
      this.#finish(undefined);
      void work.then((late) => lateSettlement(this.#rt, this.#run, late, Date.now() - this.#startedAt, graceMs));
    }, graceMs);
  }

  #settled(outcome: DispatchOutcome): void {
    if (this.#done) return;
    if (this.#grace !== undefined) clearTimeout(this.#grace);
    this.#disarm();
    if (this.#cancellation.aborted) this.#finish(outcome);
    else {
      this.#done = true;
      this.#resolve(outcome);
    }
  }

  /** Settles an aborted race with the cancellation's answer (`settled` undefined: the work did not settle in time). */
  #finish(settled: DispatchOutcome | undefined): void {
    this.#done = true;
    let outcome: DispatchOutcome;
    try {
      outcome = this.#cancellation.outcomeOnAbort(settled);
    } catch (error) {
      outcome = errorOutcome('execute', ErrorCode.TOOL_FAILED, `the cancellation's outcomeOnAbort failed: ${messageOf(error)}`);
    }
    this.#resolve(outcome);
  }

  #disarm(): void {
    if (!this.#scheduled) return;
    this.#rt.deadlines.cancel(this);
    this.#scheduled = false;
  }
}
