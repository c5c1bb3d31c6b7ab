import { messageOf, type Outcome, type SubCall } from '@deepseek-ai/dsh-core';
import { CodeModeErrorCode } from '../errors.js';
import { type CallStatus, type CallSummary, MAX_LISTED_CALLS } from '../output.js';
import { outputText } from './guest-json.js';

/** Why a call never started. */
export type CancelReason = 'program-ended' | 'run-stopped' | 'after-end';

/** What the queue needs from the outside: the pipeline and the session log. */
export interface SubCallPort {
  /**
   * Runs a sub-call through the whole pipeline, as the outer call's sub-call, following `signal`;
   * `droppedContext` learns how many parts of additional context core dropped for it.
   */
  execute(call: SubCall, signal: AbortSignal, droppedContext: (count: number) => void): Promise<Outcome>;
  /** Logs `tool/code-dispatch`; a rejection means the call must not run. */
  dispatched(data: { subCall: string; name: string; index: number }): Promise<void>;
  /** Logs `tool/code-dispatch` again once the call settled, with its status and dropped context. */
  settled(data: { subCall: string; name: string; index: number; status: Outcome['status']; droppedContext: number }): Promise<void>;
  /** Logs `code-mode/call-cancelled` for a call that never started. */
  cancelled(data: { subCall: string; name: string; index: number; reason: CancelReason }): Promise<void>;
  /** Logs `code-mode/events-dropped`: how many `call-cancelled` events past the cap were not logged, by reason. */
  dropped(data: { type: 'code-mode/call-cancelled'; dropped: number; reasons: Record<CancelReason, number> }): Promise<void>;
}

/** The run's checks around each call. */
export interface SubCallHooks {
  /** Before a call is dispatched: false when the run has ended (a deadline or a cap), so the call must not run. */
  admit(job: Job): boolean;
  /** Receives the answer to call `index`, for the run to hand to the program. */
  answer(index: number, answer: Answer): void;
}

/** Every call of a run, bounded: the first ones in full (what the output lists), the rest counted. */
export interface CallSummaries {
  readonly listed: readonly CallSummary[];
  readonly total: number;
}

/** The answer for the program: JSON text of the output, or JSON text of a `ToolCallError`. */
export type Answer = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly text: string };

/** A call the program made, numbered in the order it made them. */
export interface Job {
  readonly index: number;
  readonly id: string;
  readonly name: string;
  /** The arguments' JSON text, as the program's bootstrap encoded them. */
  readonly args: string;
}

interface Limits {
  readonly maxToolOutputChars: number;
  readonly maxErrorChars: number;
  readonly maxCancelledEvents: number;
}

/**
 * The program's tool calls, dispatched one at a time in the order the program
 * made them, whatever it awaits (`Promise.all` included). Each is logged as
 * `tool/code-dispatch` and then runs through the whole pipeline. Never touches
 * the sandbox: answers go to the run (`SubCallHooks.answer`), which hands them to the guest.
 */
export class SubCallQueue {
  readonly #port: SubCallPort;
  readonly #limits: Limits;
  readonly #signal: AbortSignal;
  readonly #hooks: SubCallHooks;
  readonly #queue: Job[] = [];
  /** Records of the first calls only: the output lists no more, and a flood of calls must not grow the host. */
  readonly #records = new Map<number, { id: string; name: string; status: CallStatus | 'pending'; code?: string }>();
  #total = 0;
  readonly #logging: Promise<void>[] = [];
  #cancelledLogged = 0;
  readonly #cancelledDropped: Record<CancelReason, number> = { 'program-ended': 0, 'run-stopped': 0, 'after-end': 0 };
  /** The drain loop, while it runs; cleared synchronously when it finds the queue empty. */
  #running: Promise<void> | undefined;
  #draining = false;
  #stopped = false;

  constructor(port: SubCallPort, limits: Limits, signal: AbortSignal, hooks: SubCallHooks) {
    this.#port = port;
    this.#limits = limits;
    this.#signal = signal;
    this.#hooks = hooks;
  }

  /** True when no call is queued or running. */
  get idle(): boolean {
    return !this.#draining && this.#queue.length === 0;
  }

  /** Calls waiting behind the running one. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Queues a call; it starts once every earlier call has settled. */
  push(job: Job): void {
    this.#record(job, 'pending');
    this.#queue.push(job);
    if (!this.#draining) {
      this.#draining = true;
      this.#running = this.#drain();
    }
  }

  /**
   * Records a call refused before it could be queued (not callable, too many calls, …) and answers it,
   * unless the guest already rejected it itself (`answered`).
   */
  refuse(job: Omit<Job, 'args'>, code: string, message: string, answered = false): void {
    this.#record(job, 'refused', code);
    if (!answered)
      this.#hooks.answer(job.index, { ok: false, text: errorText(job.name, 'error', code, message, this.#limits.maxErrorChars) });
  }

  /** Counts calls up to `total` that the guest refused and sent only as a count (they are past the listed ones). */
  counted(total: number): void {
    this.#total = Math.max(this.#total, total);
  }

  /** Records and logs a call that arrived once the run had ended or was stopping; the program gets no answer. */
  cancelUnqueued(job: Omit<Job, 'args'>, reason: CancelReason): void {
    this.#record(job, 'cancelled', CodeModeErrorCode.CALL_CANCELLED);
    this.#logCancel({ subCall: job.id, name: job.name, index: job.index, reason });
  }

  /**
   * Stops the queue: calls that have not started are cancelled and logged;
   * the running one is left to the signal the caller aborts. Settles when
   * the running call has settled (or `graceMs` passed) and every event is logged.
   */
  async stop(reason: CancelReason, graceMs: number): Promise<void> {
    this.#stopped = true;
    for (const job of this.#queue.splice(0)) this.#cancel(job, reason);
    const running = this.#running;
    if (this.#draining && running !== undefined) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([running, new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
    }
    const reasons = this.#cancelledDropped;
    const dropped = reasons['program-ended'] + reasons['run-stopped'] + reasons['after-end'];
    if (dropped > 0) this.#logging.push(this.#port.dropped({ type: 'code-mode/call-cancelled', dropped, reasons }).catch(() => undefined));
    await Promise.allSettled(this.#logging);
  }

  /** The first calls the program made, in order, and how many it made in all. */
  summaries(): CallSummaries {
    const listed = [...this.#records.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, r]): CallSummary => {
        const status: CallStatus = r.status === 'pending' ? 'cancelled' : r.status;
        return r.code === undefined ? { id: r.id, name: r.name, status } : { id: r.id, name: r.name, status, code: r.code };
      });
    return { listed, total: this.#total };
  }

  #record(job: Omit<Job, 'args'>, status: CallStatus | 'pending', code?: string): void {
    this.#total = Math.max(this.#total, job.index + 1);
    if (job.index >= MAX_LISTED_CALLS) return;
    this.#records.set(
      job.index,
      code === undefined ? { id: job.id, name: job.name, status } : { id: job.id, name: job.name, status, code },
    );
  }

  async #drain(): Promise<void> {
    try {
      for (let job = this.#queue.shift(); job !== undefined; job = this.#queue.shift()) {
        if (this.#stopped) {
          this.#cancel(job, 'run-stopped');
          continue;
        }
        const answer = await this.#run(job);
        if (answer !== undefined) this.#hooks.answer(job.index, answer);
      }
    } finally {
      // Synchronously with the last delivery's turn: a call the program makes next starts a new drain.
      this.#draining = false;
    }
  }

  async #run(job: Job): Promise<Answer | undefined> {
    const { index, id, name } = job;
    const record = this.#records.get(index);
    if (!this.#hooks.admit(job)) {
      this.#cancel(job, 'run-stopped');
      return undefined;
    }
    try {
      await this.#port.dispatched({ subCall: id, name, index });
    } catch (error) {
      if (record !== undefined) Object.assign(record, { status: 'refused', code: CodeModeErrorCode.DISPATCH_NOT_LOGGED });
      const message = `the call could not be logged, so it did not run: ${messageOf(error)}`;
      return { ok: false, text: errorText(name, 'error', CodeModeErrorCode.DISPATCH_NOT_LOGGED, message, this.#limits.maxErrorChars) };
    }
    if (this.#stopped) {
      this.#cancel(job, 'run-stopped');
      return { ok: false, text: errorText(name, 'cancelled', CodeModeErrorCode.CALL_CANCELLED, 'the run stopped', 200) };
    }
    let outcome: Outcome;
    let droppedContext = 0;
    try {
      outcome = await this.#port.execute({ id, name, args: job.args }, this.#signal, (count) => {
        droppedContext += count;
      });
    } catch (error) {
      // The pipeline never rejects; this is a last resort, so the program is not left waiting.
      outcome = { status: 'error', stage: 'execute', error: { code: 'TOOL_FAILED', message: messageOf(error) } };
    }
    // The call ran: a log that cannot take this record has already been reported by core (SINK_FAILED).
    await this.#port.settled({ subCall: id, name, index, status: outcome.status, droppedContext }).catch(() => undefined);
    if (record !== undefined) {
      record.status = outcome.status;
      if (outcome.status !== 'ok') record.code = outcome.status === 'error' ? outcome.error.code : outcome.code;
    }
    return this.#answer(name, outcome);
  }

  #answer(name: string, outcome: Outcome): Answer {
    const max = this.#limits.maxErrorChars;
    switch (outcome.status) {
      case 'ok': {
        const text = outputText(outcome.output);
        if (text.length <= this.#limits.maxToolOutputChars) return { ok: true, text };
        const message = `the output is ${text.length} characters of JSON; the limit for a program is ${this.#limits.maxToolOutputChars}`;
        return { ok: false, text: errorText(name, 'error', CodeModeErrorCode.OUTPUT_TOO_LARGE, message, max) };
      }
      case 'error':
        return { ok: false, text: errorText(name, 'error', outcome.error.code, outcome.error.message, max) };
      default:
        return { ok: false, text: errorText(name, outcome.status, outcome.code, outcome.reason, max) };
    }
  }

  #cancel(job: Job, reason: CancelReason): void {
    this.#record(job, 'cancelled', CodeModeErrorCode.CALL_CANCELLED);
    this.#logCancel({ subCall: job.id, name: job.name, index: job.index, reason });
  }

  #logCancel(data: { subCall: string; name: string; index: number; reason: CancelReason }): void {
    // Bounded per run: past the cap, cancellations are only counted, and summarised in one event at the end.
    if (this.#cancelledLogged >= this.#limits.maxCancelledEvents) {
      this.#cancelledDropped[data.reason] += 1;
      return;
    }
    this.#cancelledLogged += 1;
    // A failed write is already a host diagnostic; the call did not run either way.
    this.#logging.push(this.#port.cancelled(data).catch(() => undefined));
  }
}

/** JSON text of a `ToolCallError` for the guest: the message as the model's code will read it, capped. */
export function errorText(tool: string, status: string, code: string, message: string, maxChars: number): string {
  const capped = message.length > maxChars ? `${message.slice(0, maxChars)}…[truncated]` : message;
  return JSON.stringify({ tool, status, code, message: capped });
}
