import { DshError, messageOf } from '@deepseek-ai/dsh-core';
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core';
import { CodeModeErrorCode } from '../errors.js';
import type { ResolvedCodeModeOptions } from '../options.js';
import { PROGRAM_FILE } from '../program-source.js';
import { bootstrapSource, HOST_CALL, HOST_DONE, HOST_LOG } from './bootstrap.js';
import { parseGuestJson } from './guest-json.js';
import { LogBuffer } from './log-buffer.js';
import { compileProgram } from './program-compile.js';
import { type ProgramEnd, type RunReport, reportOf } from './run-report.js';
import { memoryExhausted, type Sandbox, type SandboxPool } from './sandbox.js';
import { type Answer, type SubCallPort, SubCallQueue } from './sub-calls.js';

/** One `run_code` call's program: a fresh sandbox, its tool calls, and how it ended. */
export class ProgramRun {
  readonly #options: ResolvedCodeModeOptions;
  readonly #callable: ReadonlySet<string>;
  readonly #callId: string;
  readonly #logs: LogBuffer;
  readonly #cancel = new AbortController();
  readonly #queue: SubCallQueue;
  readonly #arrived: { index: number; answer: Answer }[] = [];
  #sandbox: Sandbox | undefined;
  /** The guest's `settle(index, ok, text)`, held while the run lasts. */
  #settle: QuickJSHandle | undefined;
  #end: ProgramEnd | undefined;
  #nextIndex = 0;
  #wake: () => void = () => undefined;
  #sliceDeadline = 0;
  #sliceBudget: 'cpu' | 'wall' = 'wall';
  #wallDeadline = 0;
  #cpuUsedMs = 0;
  readonly #sandboxes: SandboxPool;

  constructor(
    options: ResolvedCodeModeOptions,
    sandboxes: SandboxPool,
    callable: ReadonlySet<string>,
    callId: string,
    port: SubCallPort,
    outer: AbortSignal,
  ) {
    this.#options = options;
    this.#sandboxes = sandboxes;
    this.#callable = callable;
    this.#callId = callId;
    this.#logs = new LogBuffer(options.maxLogChars);
    const limits = { maxToolOutputChars: options.maxToolOutputChars, maxErrorChars: options.maxErrorChars };
    this.#queue = new SubCallQueue(port, limits, AbortSignal.any([outer, this.#cancel.signal]));
  }

  /** Runs the program to its end and reports how it ended. Never throws. */
  async run(code: string, outer: AbortSignal): Promise<RunReport> {
    this.#wallDeadline = performance.now() + this.#options.timeoutMs;
    const wallTimer = setTimeout(() => this.#halt({ kind: 'timeout', budget: 'wall' }), this.#options.timeoutMs);
    const onAbort = (): void => this.#halt({ kind: 'aborted' });
    outer.addEventListener('abort', onAbort, { once: true });
    try {
      if (outer.aborted) this.#halt({ kind: 'aborted' });
      else await this.#start(code);
      if (this.#end === undefined) await this.#loop();
    } catch (error) {
      this.#halt({ kind: 'crashed', message: messageOf(error) });
    } finally {
      clearTimeout(wallTimer);
      outer.removeEventListener('abort', onAbort);
    }
    const end = this.#end ?? { kind: 'crashed', message: 'the run ended without a reason' };
    // Whatever is still in flight (a call the program never awaited, or one the deadline overtook) is aborted.
    this.#cancel.abort(new DshError(CodeModeErrorCode.CALL_CANCELLED, cancelMessage(end)));
    await this.#queue.stop(end.kind === 'done' ? 'program-ended' : 'run-stopped', this.#options.cancelGraceMs);
    this.#dispose();
    this.#sandboxes.refill();
    return reportOf(end, this.#logs, this.#queue.summaries(), this.#options);
  }

  async #start(code: string): Promise<void> {
    this.#sandbox = await this.#sandboxes.take();
    this.#sandbox.runtime.setInterruptHandler(() => this.#interrupt());
    const { context } = this.#sandbox;
    this.#installHostFunctions(context);
    const bootstrap = bootstrapSource({
      names: [...this.#callable],
      maxArgsChars: this.#options.maxArgsChars,
      maxLogChars: this.#options.maxLogChars,
      maxResultChars: this.#options.maxResultChars,
      maxErrorChars: this.#options.maxErrorChars,
    });
    const entry = this.#enter(() => context.unwrapResult(context.evalCode(bootstrap, 'bootstrap.js')));
    if (entry === undefined) return;
    const [accept, run, describe, settle] = [0, 1, 2, 3].map((i) => context.getProp(entry, i)) as QuickJSHandle[] as [
      QuickJSHandle,
      QuickJSHandle,
      QuickJSHandle,
      QuickJSHandle,
    ];
    entry.dispose();
    this.#settle = settle;
    try {
      const failure = await compileProgram(code, (source) => this.#compile(context, source, accept, describe));
      if (failure !== undefined) this.#halt(failure);
      else if (this.#end === undefined) this.#enter(() => context.unwrapResult(context.callFunction(run, context.undefined)).dispose());
    } finally {
      for (const handle of [accept, run, describe]) handle.dispose();
    }
  }

  /** Compiles the wrapped program under its file name; '' when the guest now holds it, else the error as JSON text. */
  #compile(context: QuickJSContext, source: string, accept: QuickJSHandle, describe: QuickJSHandle): string | undefined {
    if (this.#end !== undefined) return undefined;
    return this.#enter(() => {
      const compiled = context.evalCode(source, PROGRAM_FILE);
      if (compiled.error === undefined) {
        try {
          context.unwrapResult(context.callFunction(accept, context.undefined, compiled.value)).dispose();
        } finally {
          compiled.value.dispose();
        }
        return '';
      }
      try {
        const described = context.unwrapResult(context.callFunction(describe, context.undefined, compiled.error));
        try {
          return context.typeof(described) === 'string' ? context.getString(described) : UNDESCRIBED;
        } finally {
          described.dispose();
        }
      } finally {
        compiled.error.dispose();
      }
    });
  }

  /** Delivers tool answers and runs pending jobs until the program ends or waits on nothing. */
  async #loop(): Promise<void> {
    const sandbox = this.#sandbox;
    if (sandbox === undefined) return;
    for (;;) {
      this.#deliver(sandbox.context);
      if (this.#end !== undefined) return;
      const jobs = this.#enter(() => sandbox.runtime.executePendingJobs());
      if (jobs?.error !== undefined) {
        const message = this.#readError(sandbox.context, jobs.error);
        jobs.error.dispose();
        this.#halt(this.#failureOf(message));
      }
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

  #deliver(context: QuickJSContext): void {
    const settle = this.#settle;
    if (settle === undefined) return;
    for (let item = this.#arrived.shift(); item !== undefined && this.#end === undefined; item = this.#arrived.shift()) {
      const { index, answer } = item;
      this.#enter(() => {
        const at = context.newNumber(index);
        const text = context.newString(answer.text);
        try {
          context
            .unwrapResult(context.callFunction(settle, context.undefined, at, answer.ok ? context.true : context.false, text))
            .dispose();
        } finally {
          at.dispose();
          text.dispose();
        }
      });
    }
  }

  #installHostFunctions(context: QuickJSContext): void {
    const call = context.newFunction(HOST_CALL, (name, args) => this.#onCall(context, name, args));
    const log = context.newFunction(HOST_LOG, (line) => this.#onLog(context, line));
    const done = context.newFunction(HOST_DONE, (kind, text, total, dropped) => this.#onDone(context, kind, text, total, dropped));
    for (const [key, fn] of [
      [HOST_CALL, call],
      [HOST_LOG, log],
      [HOST_DONE, done],
    ] as const) {
      context.setProp(context.global, key, fn);
      fn.dispose();
    }
  }

  /** `tools.x(args)` arrived: refuse it at once (by throwing), or queue it; the answer comes through `settle`. */
  #onCall(context: QuickJSContext, nameHandle: QuickJSHandle | undefined, argsHandle: QuickJSHandle | undefined) {
    const name = this.#readString(context, nameHandle, 64) ?? '';
    // Numbered as the bootstrap numbers them: one per call that reaches the host, refused or not.
    const index = this.#nextIndex++;
    const id = `${this.#callId}:code:${index}`;
    const refuse = (status: 'refused' | 'cancelled', code: string, message: string) => ({
      error: context.newString(this.#queue.refuse(index, id, name, status, code, message)),
    });
    if (this.#end !== undefined) {
      return refuse('cancelled', CodeModeErrorCode.CALL_CANCELLED, `tools.${name} was called after the program ended`);
    }
    if (!this.#callable.has(name)) {
      return refuse('refused', CodeModeErrorCode.TOOL_NOT_CALLABLE, `"${name}" is not a tool this program may call`);
    }
    if (index >= this.#options.maxCalls) {
      return refuse('refused', CodeModeErrorCode.TOO_MANY_CALLS, `a program may make at most ${this.#options.maxCalls} tool calls`);
    }
    const args = this.#readString(context, argsHandle, this.#options.maxArgsChars);
    if (args === undefined) {
      return refuse('refused', CodeModeErrorCode.ARGS_TOO_LARGE, `the arguments are longer than ${this.#options.maxArgsChars} characters`);
    }
    this.#queue.push({
      index,
      id,
      name,
      args,
      deliver: (answer) => {
        this.#arrived.push({ index, answer });
        this.#wake();
      },
    });
    return undefined;
  }

  #onLog(context: QuickJSContext, handle: QuickJSHandle | undefined): QuickJSHandle {
    const json = this.#readString(context, handle, this.#options.maxLogChars * 6 + 16);
    const line = json === undefined ? undefined : parseJsonString(json);
    const full = this.#logs.append(line ?? '[unreadable console output]');
    return full ? context.true : context.false;
  }

  #onDone(context: QuickJSContext, ...[kindHandle, textHandle, totalHandle, droppedHandle]: (QuickJSHandle | undefined)[]): void {
    if (this.#end !== undefined) return;
    const kind = this.#readString(context, kindHandle, 16);
    const text = this.#readString(context, textHandle, this.#options.maxResultChars + this.#options.maxErrorChars * 2 + 1024) ?? '';
    const total = this.#readNumber(context, totalHandle) ?? text.length;
    this.#logs.droppedByGuest(this.#readNumber(context, droppedHandle) ?? 0);
    if (kind === 'ok') this.#halt({ kind: 'done', text, totalChars: Math.max(total, text.length) });
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

  #readNumber(context: QuickJSContext, handle: QuickJSHandle | undefined): number | undefined {
    return handle !== undefined && context.typeof(handle) === 'number' ? context.getNumber(handle) : undefined;
  }

  /**
   * A guest string, or `undefined` when it is not one or is longer than `max`
   * characters. The bootstrap caps what it sends, and the sandbox's memory
   * bounds it anyway, so the length is checked after reading.
   */
  #readString(context: QuickJSContext, handle: QuickJSHandle | undefined, max: number): string | undefined {
    if (handle === undefined || context.typeof(handle) !== 'string') return undefined;
    const text = context.getString(handle);
    return text.length <= max ? text : undefined;
  }

  #readError(context: QuickJSContext, handle: QuickJSHandle): string {
    // Errors out of executePendingJobs are the engine's own (interrupted, out of memory): plain objects to read.
    const message = context.getProp(handle, 'message');
    try {
      return context.typeof(message) === 'string' ? context.getString(message).slice(0, 500) : 'unknown error';
    } finally {
      message.dispose();
    }
  }

  #failureOf(message: string): ProgramEnd {
    const sandbox = this.#sandbox;
    if (message.includes('out of memory') || (sandbox !== undefined && memoryExhausted(sandbox))) return { kind: 'out-of-memory' };
    if (message === 'interrupted') return { kind: 'timeout', budget: this.#sliceBudget };
    return { kind: 'threw', error: JSON.stringify({ name: 'InternalError', message }) };
  }

  /** Runs `fn` inside the interpreter with the interrupt deadline set; a host-level failure ends the run. */
  #enter<T>(fn: () => T): T | undefined {
    const started = performance.now();
    const wallLeft = this.#wallDeadline - started;
    const cpuLeft = this.#options.cpuTimeoutMs - this.#cpuUsedMs;
    this.#sliceBudget = cpuLeft < wallLeft ? 'cpu' : 'wall';
    this.#sliceDeadline = started + Math.max(0, Math.min(wallLeft, cpuLeft));
    try {
      return fn();
    } catch (error) {
      this.#halt(this.#failureOrCrash(error));
      return undefined;
    } finally {
      this.#cpuUsedMs += performance.now() - started;
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
    // Once the program has ended, whatever it left running stops at the next check.
    if (this.#end !== undefined) return true;
    if (performance.now() <= this.#sliceDeadline) return false;
    // Decided here: an async function turns the interrupt into a rejection the guest would report as a throw.
    this.#halt({ kind: 'timeout', budget: this.#sliceBudget });
    return true;
  }

  #halt(end: ProgramEnd): void {
    if (this.#end !== undefined) return;
    this.#end = end;
    this.#wake();
  }

  #dispose(): void {
    const sandbox = this.#sandbox;
    this.#sandbox = undefined;
    if (sandbox === undefined) return;
    // After an engine abort the instance is unusable: drop it and let the collector take it.
    if (this.#end?.kind === 'crashed' || this.#end?.kind === 'out-of-memory') return;
    try {
      this.#settle?.dispose();
      sandbox.context.dispose();
      sandbox.runtime.dispose();
    } catch {
      // A leak check failing inside QuickJS changes nothing: the whole instance is dropped with this run.
    }
  }
}

const UNDESCRIBED = '{"name":"Error","message":"the program could not be compiled","stack":""}';

function parseJsonString(json: string): string | undefined {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

function cancelMessage(end: ProgramEnd): string {
  return end.kind === 'done' ? 'the program ended without awaiting this call' : 'the run_code program stopped before this call finished';
}
