import { DshError, messageOf } from '@deepseek-ai/dsh-core';
import { CodeModeErrorCode } from '../errors.js';
import type { ResolvedCodeModeOptions } from '../options.js';
import { CallIntake, type IntakePhase } from './call-intake.js';
import { GuestBridge, type GuestDone } from './guest-bridge.js';
import { parseGuestJson } from './guest-json.js';
import { LogBuffer } from './log-buffer.js';
import { compileProgram } from './program-compile.js';
import { RunBudget } from './run-budget.js';
import { type ProgramEnd, type RunReport, reportOf } from './run-report.js';
import { memoryExhausted, type Sandbox, type SandboxPool } from './sandbox.js';
import { type Answer, type SubCallPort, SubCallQueue } from './sub-calls.js';

/**
 * One `run_code` call's program: a fresh sandbox, its tool calls, and how it
 * ended. The host enters the guest to start the program, to answer calls and
 * to run the jobs that follow; after each entry it collects the calls the
 * program made and queues them, and it waits (outside the guest) while calls
 * run, until the program ends, a deadline passes or the step is cancelled.
 */
export class ProgramRun {
  readonly #options: ResolvedCodeModeOptions;
  readonly #sandboxes: SandboxPool;
  readonly #callable: ReadonlySet<string>;
  readonly #logs: LogBuffer;
  readonly #cancel = new AbortController();
  readonly #queue: SubCallQueue;
  readonly #intake: CallIntake;
  readonly #budget: RunBudget;
  readonly #arrived: { index: number; answer: Answer }[] = [];
  #sandbox: Sandbox | undefined;
  #bridge: GuestBridge | undefined;
  #end: ProgramEnd | undefined;
  /** Set when the guest reported its end: calls collected afterwards came after it. */
  #guestEnded = false;
  /** While the host collects calls, trusted bootstrap code with no loop runs: the interrupt must not cut it. */
  #collecting = false;
  #wake: () => void = () => undefined;

  constructor(options: ResolvedCodeModeOptions, sandboxes: SandboxPool, callable: ReadonlySet<string>, callId: string, port: SubCallPort) {
    this.#options = options;
    this.#sandboxes = sandboxes;
    this.#callable = callable;
    this.#logs = new LogBuffer(options.maxLogChars);
    this.#budget = new RunBudget(options.cpuTimeoutMs, options.timeoutMs);
    const limits = { maxToolOutputChars: options.maxToolOutputChars, maxErrorChars: options.maxErrorChars };
    // Sub-calls follow one signal, aborted when the outer call is or when the run ends. Not AbortSignal.any:
    // each sub-call adds and removes a listener on it, which costs twice as much on a composite signal.
    this.#queue = new SubCallQueue(port, limits, this.#cancel.signal, (index, answer) => {
      this.#arrived.push({ index, answer });
      this.#wake();
    });
    this.#intake = new CallIntake(this.#queue, callable, callId, options);
  }

  /** Runs the program to its end and reports how it ended. Never throws. */
  async run(code: string, outer: AbortSignal): Promise<RunReport> {
    const wallTimer = setTimeout(() => this.#halt({ kind: 'timeout', budget: 'wall' }), this.#options.timeoutMs);
    const onAbort = (): void => {
      this.#cancel.abort(outer.reason);
      this.#halt({ kind: 'aborted' });
    };
    outer.addEventListener('abort', onAbort, { once: true });
    try {
      if (outer.aborted) onAbort();
      else await this.#start(code);
      if (this.#end === undefined) await this.#loop();
    } catch (error) {
      this.#halt({ kind: 'crashed', message: messageOf(error) });
    } finally {
      clearTimeout(wallTimer);
      outer.removeEventListener('abort', onAbort);
    }
    const end = this.#end ?? { kind: 'crashed', message: 'the run ended without a reason' };
    // Calls made in the last entry, if the instance can still be read, are reported with the rest.
    if (end.kind !== 'crashed' && end.kind !== 'out-of-memory') this.#collect();
    // Whatever is still in flight (a call the program never awaited, or one the deadline overtook) is aborted.
    this.#cancel.abort(new DshError(CodeModeErrorCode.CALL_CANCELLED, cancelMessage(end)));
    await this.#queue.stop(end.kind === 'done' ? 'program-ended' : 'run-stopped', this.#options.cancelGraceMs);
    this.#dispose();
    this.#sandboxes.refill();
    return reportOf(end, this.#logs, this.#queue.summaries(), this.#options);
  }

  async #start(code: string): Promise<void> {
    const sandbox = await this.#sandboxes.take();
    this.#sandbox = sandbox;
    sandbox.runtime.setInterruptHandler(() => this.#interrupt());
    const o = this.#options;
    const limits = { maxLogChars: o.maxLogChars, maxResultChars: o.maxResultChars, maxErrorChars: o.maxErrorChars };
    const bridge = new GuestBridge(sandbox, limits, { log: (line) => this.#logs.append(line), done: (report) => this.#onDone(report) });
    this.#bridge = bridge;
    const config = { names: [...this.#callable], ...limits, maxArgsChars: o.maxArgsChars };
    const installed = this.#enter(() => {
      bridge.install(config);
      return true;
    });
    if (installed === undefined) return;
    const failure = await compileProgram(code, (source) =>
      this.#end === undefined ? this.#enter(() => bridge.compile(source)) : undefined,
    );
    if (failure !== undefined) this.#halt(failure);
    if (this.#end !== undefined) return;
    this.#enter(() => bridge.start());
    this.#collect();
  }

  /** Delivers tool answers and runs pending jobs until the program ends or waits on nothing. */
  async #loop(): Promise<void> {
    const bridge = this.#bridge;
    if (bridge === undefined) return;
    for (;;) {
      this.#deliver(bridge);
      if (this.#end !== undefined) return;
      const failed = this.#enter(() => bridge.runJobs() ?? '');
      // Before the failure (if any) ends the run: the calls made in this entry were made before it.
      this.#collect();
      if (failed !== undefined && failed !== '') this.#halt(this.#failureOf(failed));
      if (this.#end !== undefined) return;
      if (this.#arrived.length > 0) continue;
      if (this.#queue.idle) {
        this.#halt({ kind: 'stalled' });
        return;
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  #deliver(bridge: GuestBridge): void {
    const arrived = this.#arrived;
    if (arrived.length === 0) return;
    this.#enter(() => {
      // An answer can run program code (a getter of `then` on Object.prototype), which may end the run.
      for (let item = arrived.shift(); item !== undefined && this.#end === undefined; item = arrived.shift()) {
        bridge.deliver(item.index, item.answer.ok, item.answer.text);
      }
      return true;
    });
  }

  /** Takes the calls the program made in the last entry into the guest. */
  #collect(): void {
    const bridge = this.#bridge;
    if (bridge === undefined) return;
    this.#collecting = true;
    let outbox: string | undefined;
    try {
      outbox = this.#enter(() => bridge.collect());
    } finally {
      this.#collecting = false;
    }
    if (outbox !== undefined) this.#intake.take(outbox, this.#phase());
  }

  #phase(): IntakePhase {
    if (this.#guestEnded) return 'ended';
    return this.#end === undefined ? 'running' : 'stopping';
  }

  #onDone(report: GuestDone): void {
    if (this.#end !== undefined) return;
    // The calls made before the end are taken first: they are queued (and cancelled as the run stops).
    this.#intake.take(report.outbox, 'running');
    this.#guestEnded = true;
    const { kind, text } = report;
    this.#logs.droppedByGuest(report.droppedLines ?? 0);
    if (kind === 'ok') this.#halt({ kind: 'done', text, totalChars: Math.max(report.totalChars ?? text.length, text.length) });
    else if (kind === 'not-json') this.#halt({ kind: 'not-json', error: text });
    else if (this.#ranOutOfMemory(text)) this.#halt({ kind: 'out-of-memory' });
    else this.#halt({ kind: 'threw', error: text });
  }

  /** QuickJS throws `null` when it cannot even allocate the error: with memory at its cap, that is running out of it. */
  #ranOutOfMemory(errorJson: string): boolean {
    const error = parseGuestJson(errorJson) as { name?: unknown; message?: unknown } | undefined;
    if (error?.name === 'InternalError' && error.message === 'out of memory') return true;
    return error?.name === 'Thrown value' && error.message === 'null' && this.#sandbox !== undefined && memoryExhausted(this.#sandbox);
  }

  #failureOf(message: string): ProgramEnd {
    const sandbox = this.#sandbox;
    if (message.includes('out of memory') || (sandbox !== undefined && memoryExhausted(sandbox))) return { kind: 'out-of-memory' };
    if (message === 'interrupted') return { kind: 'timeout', budget: this.#budget.budget };
    return { kind: 'threw', error: JSON.stringify({ name: 'InternalError', message }) };
  }

  /** Runs `fn` inside the interpreter with the interrupt deadline set; a host-level failure ends the run. */
  #enter<T>(fn: () => T): T | undefined {
    const started = this.#budget.open();
    try {
      return fn();
    } catch (error) {
      this.#halt(this.#failureOrCrash(error));
      return undefined;
    } finally {
      this.#budget.close(started);
    }
  }

  #failureOrCrash(error: unknown): ProgramEnd {
    const sandbox = this.#sandbox;
    const message = messageOf(error);
    // unwrapResult throws the guest error dumped to a host Error: interrupts and OOM come this way.
    if (message === 'interrupted' || message.includes('out of memory')) return this.#failureOf(message);
    if (sandbox !== undefined && memoryExhausted(sandbox)) return { kind: 'out-of-memory' };
    return { kind: 'crashed', message, printed: sandbox?.printed.join('\n') ?? '' };
  }

  #interrupt(): boolean {
    if (this.#collecting) return false;
    // Once the program has ended, whatever it left running stops at the next check.
    if (this.#end !== undefined) return true;
    if (!this.#budget.spent()) return false;
    // Decided here: an async function turns the interrupt into a rejection the guest would report as a throw.
    this.#halt({ kind: 'timeout', budget: this.#budget.budget });
    return true;
  }

  #halt(end: ProgramEnd): void {
    if (this.#end !== undefined) return;
    this.#end = end;
    this.#wake();
  }

  #dispose(): void {
    const sandbox = this.#sandbox;
    const bridge = this.#bridge;
    this.#sandbox = undefined;
    this.#bridge = undefined;
    if (sandbox === undefined) return;
    // After an engine abort the instance is unusable: drop it and let the collector take it.
    if (this.#end?.kind === 'crashed' || this.#end?.kind === 'out-of-memory') return;
    try {
      bridge?.dispose();
      sandbox.context.dispose();
      sandbox.runtime.dispose();
    } catch {
      // A leak check failing inside QuickJS changes nothing: the whole instance is dropped with this run.
    }
  }
}

function cancelMessage(end: ProgramEnd): string {
  return end.kind === 'done' ? 'the program ended without awaiting this call' : 'the run_code program stopped before this call finished';
}
