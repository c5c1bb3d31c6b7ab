import { DoneKind } from './bootstrap.js';
import { GuestBridge, type GuestDone, type GuestListener } from './guest-bridge.js';
import { type AnswerItem, configKey, type GuestConfig, type GuestEnd, type GuestReport } from './guest-protocol.js';
import { errorMessage as messageOf, parseGuestJson } from './guest-text.js';
import { LogBuffer } from './log-buffer.js';
import { bridgeLimits, type PreparedInstance } from './prepared-instance.js';
import { compileProgram } from './program-compile.js';
import { memoryExhausted, type Sandbox } from './sandbox.js';

/**
 * One run's guest, inside the worker thread: a fresh sandbox, the bridge to
 * it, and how the program ended. Each message from the host enters the
 * interpreter once (start, or deliver answers and run the jobs that follow)
 * and ends with a report of the calls the program made. The host stops a
 * run by raising the shared stop flag, which the interrupt handler reads;
 * when even that is too slow (one long BigInt operation), it terminates
 * the whole worker.
 */
export class GuestSession {
  readonly #sandbox: Sandbox;
  readonly #stop: Int32Array;
  readonly #bridge: GuestBridge;
  readonly #logs: LogBuffer;
  readonly #config: GuestConfig;
  #end: GuestEnd | undefined;
  /** How many calls the program had made when it reported its end; later ones came after it. */
  #endIndex: number | undefined;
  /** The end was reported to the host: later reports carry only calls. */
  #endReported = false;
  #dropped = 0;
  /** The bootstrap was installed with the instance, before the run. */
  #installed = false;
  /** While the host collects calls, trusted bootstrap code with no loop runs: the interrupt must not cut it. */
  #collecting = false;

  constructor(instance: PreparedInstance, stop: Int32Array, config: GuestConfig, sendLog: (line: string) => void) {
    const sandbox = instance.sandbox;
    this.#sandbox = sandbox;
    this.#stop = stop;
    this.#config = config;
    this.#logs = new LogBuffer(config.maxLogChars);
    const listener: GuestListener = {
      log: (line) => {
        if (this.#logs.full) {
          this.#dropped += 1;
          return true;
        }
        sendLog(line);
        return this.#logs.append(line);
      },
      done: (report) => this.#onDone(report),
    };
    const installed = instance.installed;
    if (installed !== undefined && installed.key === configKey(config)) {
      installed.relay.target = listener;
      this.#bridge = installed.bridge;
      this.#installed = true;
    } else {
      this.#bridge = new GuestBridge(sandbox, bridgeLimits(config), listener);
    }
    sandbox.runtime.setInterruptHandler(() => this.#interrupt());
  }

  /** Installs the bootstrap, compiles the program and runs it to its first wait; `mark` times the stages (a traced run). */
  async start(code: string, mark?: (stage: 'compiled' | 'ran') => void): Promise<GuestReport> {
    const bridge = this.#bridge;
    // Usually installed ahead, with the instance (see PreparedInstance).
    const installed =
      this.#installed ||
      this.#enter(() => {
        bridge.install(this.#config);
        return true;
      });
    if (installed !== undefined) {
      const failure = await compileProgram(code, (source) =>
        this.#end === undefined ? this.#enter(() => bridge.compile(source)) : undefined,
      );
      if (failure !== undefined) this.#halt(failure as GuestEnd);
      mark?.('compiled');
      if (this.#end === undefined) this.#enter(() => bridge.start());
    }
    this.#runJobs();
    mark?.('ran');
    return { ...this.#afterEntry(), warm: this.#installed };
  }

  /** Delivers answers and runs the jobs that follow. */
  answer(items: readonly AnswerItem[]): GuestReport {
    const bridge = this.#bridge;
    if (this.#end === undefined) {
      this.#enter(() => {
        // An answer can run program code (a getter of `then` on Object.prototype), which may end the run.
        for (const [index, ok, text] of items) {
          if (this.#end !== undefined) break;
          bridge.deliver(index, ok, text);
        }
        return true;
      });
    }
    this.#runJobs();
    return this.#afterEntry();
  }

  /** Drops the instance; after an engine failure it is only left to the collector. */
  dispose(): void {
    const kind = this.#end?.kind;
    if (kind === 'crashed' || kind === 'out-of-memory') return;
    try {
      this.#bridge.dispose();
      this.#sandbox.context.dispose();
      this.#sandbox.runtime.dispose();
    } catch {
      // A leak check failing inside QuickJS changes nothing: the whole instance goes with this run.
    }
  }

  #runJobs(): void {
    if (this.#end !== undefined) return;
    const failed = this.#enter(() => this.#bridge.runJobs() ?? '');
    if (failed !== undefined && failed !== '') this.#halt(this.#failureOf(failed));
  }

  /**
   * The report of an entry: the calls made in it, and how the guest ended
   * when it did. The end is read after the collection, which can itself hit
   * the memory cap; at the cap the calls come from the ledger instead, which
   * needs no guest memory.
   */
  #afterEntry(): GuestReport {
    const before = this.#end?.kind;
    const collected = before === 'crashed' || before === 'out-of-memory' ? undefined : this.#collect();
    const end = this.#endReported ? undefined : this.#end;
    const lost = this.#end?.kind === 'out-of-memory' && collected === undefined ? this.#ledger() : undefined;
    const report: { -readonly [K in keyof GuestReport]: GuestReport[K] } = { t: 'report', outbox: collected ?? '', dropped: this.#dropped };
    if (end !== undefined) {
      this.#endReported = true;
      report.end = end;
      if (this.#endIndex !== undefined) report.endIndex = this.#endIndex;
    }
    if (lost !== undefined) report.lost = lost;
    return report;
  }

  /** Takes the calls the program made since the last collection; `undefined` when it failed (the run has ended then). */
  #collect(): string | undefined {
    this.#collecting = true;
    try {
      return this.#enter(() => this.#bridge.collect());
    } finally {
      this.#collecting = false;
    }
  }

  /** The ledger of every call made, at the memory cap; `undefined` when even that fails (the calls are then lost). */
  #ledger(): GuestReport['lost'] {
    try {
      const { made, nameAt } = this.#bridge.ledger();
      return { made, nameAt: nameAt.slice(0, Math.min(made, nameAt.length)) };
    } catch {
      return undefined;
    }
  }

  #onDone(report: GuestDone): void {
    if (this.#end !== undefined) return;
    const made = report.made;
    if (made !== undefined && Number.isSafeInteger(made) && made >= 0) this.#endIndex = made;
    this.#dropped += report.droppedLines !== undefined && Number.isSafeInteger(report.droppedLines) ? report.droppedLines : 0;
    const { kind, text } = report;
    if (kind === DoneKind.ok) this.#halt({ kind: 'done', text, totalChars: Math.max(report.totalChars ?? text.length, text.length) });
    else if (kind === DoneKind.notJson) this.#halt({ kind: 'not-json', error: text });
    else if (kind === DoneKind.outOfMemory || this.#ranOutOfMemory(text)) this.#halt({ kind: 'out-of-memory' });
    else this.#halt({ kind: 'threw', error: text });
  }

  /** QuickJS throws `null` when it cannot even allocate the error: with memory at its cap, that is running out of it. */
  #ranOutOfMemory(errorJson: string): boolean {
    const error = parseGuestJson(errorJson) as { name?: unknown; message?: unknown } | undefined;
    if (error?.name === 'InternalError' && error.message === 'out of memory') return true;
    return error?.name === 'Thrown value' && error.message === 'null' && memoryExhausted(this.#sandbox);
  }

  #failureOf(message: string): GuestEnd {
    if (message.includes('out of memory') || memoryExhausted(this.#sandbox)) return { kind: 'out-of-memory' };
    if (message === 'interrupted') return { kind: 'interrupted' };
    return { kind: 'threw', error: JSON.stringify({ name: 'InternalError', message }) };
  }

  /** Runs `fn` inside the interpreter; a host-level failure (an interrupt, the memory cap, a crash) ends the run. */
  #enter<T>(fn: () => T): T | undefined {
    try {
      return fn();
    } catch (error) {
      this.#halt(this.#failureOrCrash(error));
      return undefined;
    }
  }

  #failureOrCrash(error: unknown): GuestEnd {
    const message = messageOf(error);
    // unwrapResult throws the guest error dumped to a host Error: interrupts and OOM come this way.
    if (message === 'interrupted' || message.includes('out of memory')) return this.#failureOf(message);
    if (memoryExhausted(this.#sandbox)) return { kind: 'out-of-memory' };
    return { kind: 'crashed', message, printed: this.#sandbox.printed.join('\n') };
  }

  #interrupt(): boolean {
    if (this.#collecting) return false;
    // Once the program has ended, whatever it left running stops at the next check.
    if (this.#end !== undefined) return true;
    if (Atomics.load(this.#stop, 0) === 0) return false;
    // Decided here: an async function turns the interrupt into a rejection the guest would report as a throw.
    this.#halt({ kind: 'interrupted' });
    return true;
  }

  #halt(end: GuestEnd): void {
    if (this.#end === undefined) this.#end = end;
  }
}
