import { DshError } from '@deepseek-ai/dsh-core';
import { CodeModeErrorCode } from '../errors.js';
import type { ResolvedCodeModeOptions } from '../options.js';
import { CallIntake } from './call-intake.js';
import type { AnswerItem, GuestConfig, GuestEnd, GuestReport, HostMessage, WorkerMessage } from './guest-protocol.js';
import { errorMessage } from './guest-text.js';
import { LogBuffer } from './log-buffer.js';
import { RunBudget } from './run-budget.js';
import { type ProgramEnd, type RunReport, reportOf } from './run-report.js';
import { markStage, runTrace } from './run-trace.js';
import { type Answer, type Job, type SubCallPort, SubCallQueue } from './sub-calls.js';
import type { ThreadClock } from './thread-clock.js';
import { type GuestWorker, guestWorkers, type WorkerExit } from './worker-pool.js';

/** CPU time a guest asked to stop may still take before its worker is terminated: a loop notices within microseconds. */
const STOP_GRACE_CPU_MS = 50;
/** Wall time the same, for a worker the machine does not schedule (it computes nothing meanwhile). */
const STOP_GRACE_WALL_MS = 2000;
const STOP_POLL_MS = 10;
/**
 * How long answers may wait for the calls queued behind them, so that they
 * cross to the guest together: long enough for a run of quick calls, short
 * enough that a slow call does not hold back the answers before it.
 */
const BATCH_HOLD_MS = 2;

/**
 * One `run_code` call's program, seen from the host. The guest runs in a
 * worker thread; the host sends it the program, then the answers to its
 * calls, and gets back one report per message: the calls the program made
 * and, at the end, how it ended. Between reports the host runs the calls
 * through the pipeline, one at a time. The run ends when the program does,
 * when a deadline or a cap is passed, or when the step is cancelled; a guest
 * that is computing then is asked to stop, and its worker is terminated if
 * it does not within a short grace.
 */
export class ProgramRun {
  readonly #options: ResolvedCodeModeOptions;
  readonly #logs: LogBuffer;
  readonly #cancel = new AbortController();
  readonly #queue: SubCallQueue;
  readonly #intake: CallIntake;
  readonly #budget: RunBudget;
  readonly #wallDeadline: number;
  /** What the guest's bootstrap is told; also what the next instance is prepared for. */
  readonly #config: GuestConfig;
  #answers: AnswerItem[] = [];
  #worker: GuestWorker | undefined;
  #clock: ThreadClock | undefined;
  /** The worker computes: a message was sent and its report has not come. */
  #busy = false;
  /** While a report is taken: answers it causes are sent once it is done. */
  #taking = false;
  /** The worker was terminated or died: it is not given back. */
  #lost = false;
  #end: ProgramEnd | undefined;
  #dropped = 0;
  #dataChars = 0;
  #stopTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the oldest held answer came, while answers wait for the calls queued behind them. */
  #heldSince: number | undefined;
  #holdTimer: ReturnType<typeof setTimeout> | undefined;
  #quiet: () => void = () => undefined;

  constructor(options: ResolvedCodeModeOptions, callable: ReadonlySet<string>, callId: string, port: SubCallPort) {
    this.#options = options;
    this.#logs = new LogBuffer(options.maxLogChars);
    this.#wallDeadline = performance.now() + options.timeoutMs;
    this.#budget = new RunBudget(options.cpuTimeoutMs, () => this.#halt({ kind: 'timeout', budget: 'cpu' }));
    const limits = {
      maxToolOutputChars: options.maxToolOutputChars,
      maxErrorChars: options.maxErrorChars,
      maxCancelledEvents: options.maxCancelledEvents,
    };
    // Sub-calls follow one signal, aborted when the outer call is or when the run ends.
    this.#queue = new SubCallQueue(port, limits, this.#cancel.signal, {
      admit: (job) => this.#admit(job),
      answer: (index, answer) => this.#answered(index, answer),
    });
    this.#intake = new CallIntake(this.#queue, [...callable], callId, options);
    this.#config = {
      names: [...callable],
      maxArgsChars: options.maxArgsChars,
      maxLogChars: options.maxLogChars,
      maxResultChars: options.maxResultChars,
      maxErrorChars: options.maxErrorChars,
      maxCalls: options.maxCalls,
    };
  }

  /** Runs the program to its end and reports how it ended. Never throws. */
  async run(code: string, outer: AbortSignal): Promise<RunReport> {
    const quiet = new Promise<void>((resolve) => {
      this.#quiet = resolve;
    });
    const wallTimer = setTimeout(() => this.#halt({ kind: 'timeout', budget: 'wall' }), this.#options.timeoutMs);
    const onAbort = (): void => {
      this.#cancel.abort(outer.reason);
      this.#halt({ kind: 'aborted' });
    };
    outer.addEventListener('abort', onAbort, { once: true });
    try {
      if (outer.aborted) onAbort();
      else await this.#start(code);
      await quiet;
    } catch (error) {
      this.#halt({ kind: 'crashed', message: errorMessage(error) });
    } finally {
      clearTimeout(wallTimer);
      clearTimeout(this.#stopTimer);
      clearTimeout(this.#holdTimer);
      this.#budget.close();
      outer.removeEventListener('abort', onAbort);
    }
    const end = this.#end ?? { kind: 'crashed', message: 'the run ended without a reason' };
    // Whatever is still in flight (a call the program never awaited, or one the deadline overtook) is aborted.
    this.#cancel.abort(new DshError(CodeModeErrorCode.CALL_CANCELLED, cancelMessage(end)));
    await this.#queue.stop(end.kind === 'done' ? 'program-ended' : 'run-stopped', this.#options.cancelGraceMs);
    this.#release(end);
    this.#logs.droppedByGuest(this.#dropped);
    const report = reportOf(end, this.#logs, this.#queue.summaries(), this.#options);
    markStage('released');
    return report;
  }

  async #start(code: string): Promise<void> {
    let worker: GuestWorker;
    try {
      worker = await guestWorkers.take(this.#options.memoryLimitBytes, this.#config);
    } catch (error) {
      this.#halt({ kind: 'crashed', message: `the guest worker could not start: ${errorMessage(error)}` });
      return;
    }
    markStage('taken');
    this.#worker = worker;
    worker.attach({ message: (message) => this.#onMessage(message), exit: (exit) => this.#onExit(exit) });
    this.#clock = await worker.clock;
    // The budget counts from the worker's reading when its instance was ready (it has idled since):
    // building the thread and the instance is not the program's.
    await this.#budget.start(this.#clock, worker.idleCpu());
    if (this.#end !== undefined) return this.#quiet();
    const trace = runTrace.listener !== undefined;
    this.#send(trace ? { t: 'start', code, config: this.#config, trace } : { t: 'start', code, config: this.#config });
    markStage('posted');
  }

  #send(message: HostMessage): void {
    this.#busy = true;
    this.#budget.busyStart();
    this.#worker?.post(message);
  }

  #onMessage(message: WorkerMessage): void {
    if (message.t === 'log') this.#logs.append(message.line);
    else if (message.t === 'report') this.#onReport(message);
  }

  #onReport(report: GuestReport): void {
    if (report.stages !== undefined) for (const [stage, at] of report.stages) runTrace.listener?.(stage, at);
    markStage('report');
    this.#busy = false;
    this.#budget.busyEnd();
    this.#dropped = report.dropped;
    this.#taking = true;
    try {
      this.#intake.take(report.outbox, this.#end === undefined ? 'running' : 'stopping', report.endIndex);
      if (report.end !== undefined) this.#guestEnded(report.end);
      // At the memory cap, the calls that could not cross: the run has ended, so they are cancelled.
      if (report.lost !== undefined) this.#intake.takeLost(report.lost, report.endIndex);
    } finally {
      this.#taking = false;
    }
    this.#pump();
  }

  #guestEnded(end: GuestEnd): void {
    // Interrupted means the host raised the stop flag, and it has already decided why.
    if (end.kind === 'interrupted') this.#halt({ kind: 'crashed', message: 'the guest stopped without being asked' });
    else this.#halt(end);
  }

  /**
   * Sends the answers that arrived, or sees that the program waits on
   * nothing. While more calls are queued (a `Promise.all`), answers are held
   * for them, up to {@link BATCH_HOLD_MS}, and cross in one message: one
   * round trip to the guest for the batch instead of one per call.
   */
  #pump(): void {
    if (this.#busy || this.#taking) return;
    if (this.#end !== undefined) {
      this.#quiet();
      return;
    }
    if (this.#answers.length > 0) {
      if (this.#holding()) return;
      const items = this.#answers;
      this.#answers = [];
      this.#heldSince = undefined;
      clearTimeout(this.#holdTimer);
      this.#holdTimer = undefined;
      this.#send({ t: 'answers', items });
      return;
    }
    if (this.#queue.idle) this.#halt({ kind: 'stalled' });
  }

  /** True while the answers wait for the calls queued behind them; a timer sends them when the hold is over. */
  #holding(): boolean {
    if (this.#queue.queued === 0) return false;
    const now = performance.now();
    this.#heldSince ??= now;
    const left = this.#heldSince + BATCH_HOLD_MS - now;
    if (left <= 0) return false;
    this.#holdTimer ??= setTimeout(() => {
      this.#holdTimer = undefined;
      this.#pump();
    }, Math.ceil(left));
    return true;
  }

  /** Before each dispatch: the run's deadline and its cap on call data. False when the call must not run. */
  #admit(job: Job): boolean {
    if (this.#end !== undefined) return false;
    if (performance.now() > this.#wallDeadline) this.#halt({ kind: 'timeout', budget: 'wall' });
    else this.#count(job.args.length);
    return this.#end === undefined;
  }

  /** After each answer: the same checks, then the answer goes to the guest. */
  #answered(index: number, answer: Answer): void {
    if (this.#end !== undefined) return;
    if (performance.now() > this.#wallDeadline) this.#halt({ kind: 'timeout', budget: 'wall' });
    else this.#count(answer.text.length);
    if (this.#end !== undefined) return;
    this.#answers.push([index, answer.ok, answer.text]);
    this.#pump();
  }

  #count(chars: number): void {
    this.#dataChars += chars;
    if (this.#dataChars > this.#options.maxCallDataChars) this.#halt({ kind: 'data-limit', chars: this.#dataChars });
  }

  #halt(end: ProgramEnd): void {
    if (this.#end !== undefined) return;
    this.#end = end;
    if (!this.#busy) {
      this.#quiet();
      return;
    }
    // The guest is computing: ask it to stop, and terminate its worker if it does not in time.
    this.#worker?.requestStop();
    void this.#enforceStop();
  }

  async #enforceStop(): Promise<void> {
    const clock = this.#clock;
    const since = performance.now();
    const cpuAtStop = clock === undefined ? 0 : await clock.read();
    const poll = async (): Promise<void> => {
      if (!this.#busy) return;
      const cpu = clock === undefined ? Number.POSITIVE_INFINITY : (await clock.read()) - cpuAtStop;
      if (!this.#busy) return;
      if (cpu >= STOP_GRACE_CPU_MS || performance.now() - since >= STOP_GRACE_WALL_MS) this.#kill();
      else this.#stopTimer = setTimeout(() => void poll(), STOP_POLL_MS);
    };
    this.#stopTimer = setTimeout(() => void poll(), STOP_POLL_MS);
  }

  /** Terminates the worker mid-operation: the calls of its last entry are lost, the console output so far is kept. */
  #kill(): void {
    this.#lost = true;
    this.#busy = false;
    this.#worker?.terminate();
    this.#quiet();
  }

  #onExit(exit: WorkerExit): void {
    this.#lost = true;
    this.#busy = false;
    this.#halt(exit.outOfMemory ? { kind: 'out-of-memory' } : { kind: 'crashed', message: exit.message });
    this.#quiet();
  }

  #release(end: ProgramEnd): void {
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker === undefined) return;
    // A worker still computing (it never is here, unless terminated) or one that crashed is not reused.
    const healthy = !this.#lost && !this.#busy && end.kind !== 'crashed';
    guestWorkers.release(worker, this.#options.memoryLimitBytes, healthy, this.#config);
  }
}

function cancelMessage(end: ProgramEnd): string {
  return end.kind === 'done' ? 'the program ended without awaiting this call' : 'the run_code program stopped before this call finished';
}
