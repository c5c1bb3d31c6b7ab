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
 * name only, to be counted), the arguments' length. A refused call is answered at once;
 * calls taken once the run has ended are recorded as cancelled, unanswered.
 */
export class CallIntake {
  readonly #queue: SubCallQueue;
  readonly #callable: ReadonlySet<string>;
  readonly #callId: string;
  readonly #limits: Limits;
  #nextIndex = 0;

  constructor(queue: SubCallQueue, callable: ReadonlySet<string>, callId: string, limits: Limits) {
    this.#queue = queue;
    this.#callable = callable;
    this.#callId = callId;
    this.#limits = limits;
  }

  /** Takes the outbox text: `name\nargs` pairs joined by `\n` (JSON text never holds a raw newline). */
  take(outbox: string, phase: IntakePhase): void {
    let at = 0;
    while (at < outbox.length) {
      const nameEnd = indexOrEnd(outbox, at);
      const argsEnd = indexOrEnd(outbox, nameEnd + 1);
      this.#takeOne(outbox.slice(at, nameEnd), outbox.slice(nameEnd + 1, argsEnd), phase);
      at = argsEnd + 1;
    }
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
