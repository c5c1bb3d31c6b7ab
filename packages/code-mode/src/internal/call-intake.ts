import { CodeModeErrorCode } from '../errors.js';
import { OUTBOX_SEPARATOR } from './bootstrap.js';
import type { SubCallQueue } from './sub-calls.js';

/**
 * When calls were collected: while the program runs (`running`), after it
 * reported its end (`ended`: they came after the end), or after the host
 * stopped it (`stopping`: a deadline, the memory cap, a cancelled step).
 */
export type IntakePhase = 'running' | 'ended' | 'stopping';

interface Limits {
  readonly maxCalls: number;
  readonly maxArgsChars: number;
}

/**
 * Turns the calls the guest collected into queued sub-calls, numbering them
 * in the order the program made them (as the bootstrap numbers them) and
 * checking each again on the host: the name against the callable set, the
 * call count (the guest refuses calls past `maxCalls` itself; they cross as a
 * name, or past the listed ones as a count, only to be counted), the
 * arguments' length. A refused call is answered at once; calls taken once
 * the run has ended are recorded as cancelled, unanswered.
 */
export class CallIntake {
  readonly #queue: SubCallQueue;
  readonly #callable: ReadonlySet<string>;
  readonly #names: readonly string[];
  readonly #callId: string;
  readonly #limits: Limits;
  #nextIndex = 0;

  /** `names` are the callable names in the order the guest numbers them in its ledger. */
  constructor(queue: SubCallQueue, names: readonly string[], callId: string, limits: Limits) {
    this.#queue = queue;
    this.#callable = new Set(names);
    this.#names = names;
    this.#callId = callId;
    this.#limits = limits;
  }

  /**
   * Takes the outbox text: `name\nargs` pairs joined by `\n` (JSON text never
   * holds a raw newline). An empty name counts refused calls that crossed as a
   * number. Calls from `endIndex` on came after the program's end.
   */
  take(outbox: string, phase: IntakePhase, endIndex?: number): void {
    let at = 0;
    while (at < outbox.length) {
      const nameEnd = indexOrEnd(outbox, at);
      const argsEnd = indexOrEnd(outbox, nameEnd + 1);
      const name = outbox.slice(at, nameEnd);
      const args = outbox.slice(nameEnd + 1, argsEnd);
      if (name === '') this.#count(Number(args));
      else this.#takeOne(name, args, this.#nextIndex >= (endIndex ?? Number.POSITIVE_INFINITY) ? 'ended' : phase);
      at = argsEnd + 1;
    }
  }

  /**
   * Takes the calls the guest made but could not hand over (the memory cap),
   * from its ledger: each is cancelled (or counted, when the guest refused
   * it), by the name the ledger recorded for it.
   */
  takeLost(lost: { readonly made: number; readonly nameAt: ArrayLike<number> }, endIndex?: number): void {
    const listedUpTo = Math.min(lost.made, lost.nameAt.length);
    while (this.#nextIndex < listedUpTo) {
      const name = this.#names[(lost.nameAt[this.#nextIndex] ?? 0) - 1] ?? '';
      this.#takeOne(name, '', this.#nextIndex >= (endIndex ?? Number.POSITIVE_INFINITY) ? 'ended' : 'stopping');
    }
    // Past the ledger's names are only calls the guest refused (past maxCalls): they are counted.
    if (lost.made > this.#nextIndex) this.#count(lost.made - this.#nextIndex);
  }

  /** Calls the guest refused and only counted. */
  #count(calls: number): void {
    if (!Number.isSafeInteger(calls) || calls <= 0) return;
    this.#nextIndex += calls;
    this.#queue.counted(this.#nextIndex);
  }

  #takeOne(sentName: string, args: string, phase: IntakePhase): void {
    const index = this.#nextIndex++;
    const name = sentName.slice(0, 64);
    const job = { index, id: `${this.#callId}:code:${index}`, name };
    if (index >= this.#limits.maxCalls) {
      // The guest refused it already (and answered it); it only crossed to be counted.
      this.#queue.refuse(job, CodeModeErrorCode.TOO_MANY_CALLS, '', true);
    } else if (phase !== 'running') {
      this.#queue.cancelUnqueued(job, phase === 'ended' ? 'after-end' : 'run-stopped');
    } else if (!this.#callable.has(sentName)) {
      this.#queue.refuse(job, CodeModeErrorCode.TOOL_NOT_CALLABLE, `"${name}" is not a tool this program may call`);
    } else if (args.length > this.#limits.maxArgsChars) {
      this.#queue.refuse(job, CodeModeErrorCode.ARGS_TOO_LARGE, `the arguments are longer than ${this.#limits.maxArgsChars} characters`);
    } else {
      this.#queue.push({ index, id: job.id, name, args });
    }
  }
}

/** Where the next separator from `from` is, or the end of the text. */
function indexOrEnd(text: string, from: number): number {
  const at = text.indexOf(OUTBOX_SEPARATOR, from);
  return at < 0 ? text.length : at;
}
