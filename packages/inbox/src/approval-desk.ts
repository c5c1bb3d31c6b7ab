import type { Answerer, AnswerInput, AnswerResult, StandingAnswer } from './answer.js';
import { InboxError, InboxErrorCode } from './errors.js';
import { BoundedMap } from './internal/bounded-map.js';

/** Something that can take a person's answer for one waiting call. */
export interface Waiter {
  /** Delivers the answer; throws an {@link InboxError} when it cannot be taken (a grant that was not offered). */
  settle(input: AnswerInput, who: Answerer): Promise<void> | void;
}

/** Keys a call by session and id: ids are unique per session only. */
export function callKey(session: string, call: string): string {
  return `${session}\u0000${call}`;
}

/**
 * Who waits for a person, and what was answered: the first answer wins, a
 * second gets the standing answer, and an answer for a call that stopped
 * waiting is refused with why.
 */
export class ApprovalDesk {
  readonly #waiting = new Map<string, Waiter>();
  readonly #answered: BoundedMap<string, StandingAnswer>;
  readonly #gone: BoundedMap<string, string>;
  // Answers in flight: a second answer that arrives while the first is delivered gets the first.
  readonly #settling = new Map<string, StandingAnswer>();

  constructor(retain: number) {
    this.#answered = new BoundedMap(retain);
    this.#gone = new BoundedMap(retain);
  }

  wait(session: string, call: string, waiter: Waiter): void {
    this.#waiting.set(callKey(session, call), waiter);
  }

  isWaiting(session: string, call: string): boolean {
    return this.#waiting.has(callKey(session, call));
  }

  /** The call stopped waiting without an answer from here (its deadline passed, its session ended, another answer came). */
  expire(session: string, call: string, why: string): void {
    const key = callKey(session, call);
    if (this.#settling.has(key) || this.#answered.has(key)) return;
    // The logged answer (a timeout, say) comes after the abort and says more precisely why.
    if (this.#waiting.delete(key) || this.#gone.has(key)) this.#gone.set(key, why);
  }

  /** Records an answer given elsewhere (another page, the terminal, an engine) so later answers learn it. */
  recordElsewhere(session: string, call: string, answer: StandingAnswer): void {
    const key = callKey(session, call);
    if (!this.#answered.has(key)) this.#answered.set(key, answer);
    this.#waiting.delete(key);
  }

  standing(session: string, call: string): StandingAnswer | undefined {
    const key = callKey(session, call);
    return this.#settling.get(key) ?? this.#answered.get(key);
  }

  /** Why the call no longer waits, if it stopped waiting without an answer from here. */
  goneReason(session: string, call: string): string | undefined {
    return this.#gone.get(callKey(session, call));
  }

  /** Gives the answer to the waiting call; `undefined` when nothing here waits for it (the caller says why). */
  async answer(session: string, call: string, input: AnswerInput, who: Answerer): Promise<AnswerResult | undefined> {
    const key = callKey(session, call);
    const standing = this.standing(session, call);
    if (standing !== undefined) return { status: 'already-answered', answer: standing };
    const waiter = this.#waiting.get(key);
    if (waiter === undefined) return undefined;
    const answer: StandingAnswer = {
      decision: input.decision,
      ...(input.scope === undefined ? {} : { scope: input.scope }),
      ...(input.message === undefined ? {} : { message: input.message }),
      by: who.by,
      from: who.from,
      at: new Date().toISOString(),
    };
    this.#settling.set(key, answer);
    try {
      await waiter.settle(input, who);
    } catch (error) {
      if (InboxError.isInstance(error)) throw error;
      throw new InboxError(InboxErrorCode.NOT_WAITING, `the answer could not be delivered: ${String(error)}`, { status: 410 });
    } finally {
      this.#settling.delete(key);
    }
    this.#waiting.delete(key);
    this.#answered.set(key, answer);
    return { status: 'answered', answer };
  }
}
