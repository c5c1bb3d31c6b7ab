import { messageOf, type Outcome, type SubCall } from '@deepseek-ai/dsh-core';
import { CodeModeErrorCode } from '../errors.js';
import type { CallStatus, CallSummary } from '../output.js';
import { outputText } from './guest-json.js';

/** Why a call never started. */
export type CancelReason = 'program-ended' | 'run-stopped' | 'after-end';

/** What the queue needs from the outside: the pipeline and the session log. */
export interface SubCallPort {
  /** Runs a sub-call through the whole pipeline, as the outer call's sub-call, following `signal`. */
  execute(call: SubCall, signal: AbortSignal): Promise<Outcome>;
  /** Logs `tool/code-dispatch`; a rejection means the call must not run. */
  dispatched(data: { subCall: string; name: string; index: number }): Promise<void>;
  /** Logs `code-mode/call-cancelled` for a call that never started. */
  cancelled(data: { subCall: string; name: string; index: number; reason: CancelReason }): Promise<void>;
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

/** Receives the answer to call `index`, for the run to hand to the program. */
export type AnswerSink = (index: number, answer: Answer) => void;

interface Limits {
  readonly maxToolOutputChars: number;
  readonly maxErrorChars: number;
}

/**
 * The program's tool calls, dispatched one at a time in the order the program
 * made them, whatever it awaits (`Promise.all` included). Each is logged as
 * `tool/code-dispatch` and then runs through the whole pipeline. Never touches
 * the sandbox: answers go to the run's answer sink, which hands them to the guest.
 */
export class SubCallQueue {
  readonly #port: SubCallPort;
  readonly #limits: Limits;
  readonly #signal: AbortSignal;
  readonly #sink: AnswerSink;
  readonly #queue: Job[] = [];
  readonly #records = new Map<number, { id: string; name: string; status: CallStatus | 'pending'; code?: string }>();
  readonly #logging: Promise<void>[] = [];
  /** The drain loop, while it runs; cleared synchronously when it finds the queue empty. */
  #running: Promise<void> | undefined;
  #draining = false;
  #stopped = false;

  constructor(port: SubCallPort, limits: Limits, signal: AbortSignal, answer: AnswerSink) {
    this.#port = port;
    this.#limits = limits;
    this.#signal = signal;
    this.#sink = answer;
  }

  /** True when no call is queued or running. */
  get idle(): boolean {
    return !this.#draining && this.#queue.length === 0;
  }

  /** Queues a call; it starts once every earlier call has settled. */
  push(job: Job): void {
    this.#records.set(job.index, { id: job.id, name: job.name, status: 'pending' });
    this.#queue.push(job);
    if (!this.#draining) {
      this.#draining = true;
      this.#running = this.#drain();
    }
  }

  /** Records a call refused before it could be queued (not callable, too many calls, …) and answers it. */
  refuse(job: Omit<Job, 'args'>, code: string, message: string): void {
    this.#records.set(job.index, { id: job.id, name: job.name, status: 'refused', code });
    this.#sink(job.index, { ok: false, text: errorText(job.name, 'error', code, message, this.#limits.maxErrorChars) });
  }

  /** Records and logs a call that arrived once the run had ended or was stopping; the program gets no answer. */
  cancelUnqueued(job: Omit<Job, 'args'>, reason: CancelReason): void {
    this.#records.set(job.index, { id: job.id, name: job.name, status: 'cancelled', code: CodeModeErrorCode.CALL_CANCELLED });
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
    await Promise.allSettled(this.#logging);
  }

  /** Every call the program made, in order. */
  summaries(): CallSummary[] {
    return [...this.#records.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, r]) => {
        const status: CallStatus = r.status === 'pending' ? 'cancelled' : r.status;
        return r.code === undefined ? { id: r.id, name: r.name, status } : { id: r.id, name: r.name, status, code: r.code };
      });
  }

  async #drain(): Promise<void> {
    try {
      for (let job = this.#queue.shift(); job !== undefined; job = this.#queue.shift()) {
        if (this.#stopped) {
          this.#cancel(job, 'run-stopped');
          continue;
        }
        this.#sink(job.index, await this.#run(job));
      }
    } finally {
      // Synchronously with the last delivery's turn: a call the program makes next starts a new drain.
      this.#draining = false;
    }
  }

  async #run(job: Job): Promise<Answer> {
    const { index, id, name } = job;
    const record = this.#records.get(index);
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
    try {
      outcome = await this.#port.execute({ id, name, args: job.args }, this.#signal);
    } catch (error) {
      // The pipeline never rejects; this is a last resort, so the program is not left waiting.
      outcome = { status: 'error', stage: 'execute', error: { code: 'TOOL_FAILED', message: messageOf(error) } };
    }
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
    const record = this.#records.get(job.index);
    if (record !== undefined) Object.assign(record, { status: 'cancelled', code: CodeModeErrorCode.CALL_CANCELLED });
    this.#logCancel({ subCall: job.id, name: job.name, index: job.index, reason });
  }

  #logCancel(data: { subCall: string; name: string; index: number; reason: CancelReason }): void {
    // A failed write is already a host diagnostic; the call did not run either way.
    this.#logging.push(this.#port.cancelled(data).catch(() => undefined));
  }
}

/** JSON text of a `ToolCallError` for the guest: the message as the model's code will read it, capped. */
export function errorText(tool: string, status: string, code: string, message: string, maxChars: number): string {
  const capped = message.length > maxChars ? `${message.slice(0, maxChars)}…[truncated]` : message;
  return JSON.stringify({ tool, status, code, message: capped });
}
