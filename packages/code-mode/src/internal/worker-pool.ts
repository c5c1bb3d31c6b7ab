import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { configKey, type GuestConfig, type HostMessage, type WorkerMessage } from './guest-protocol.js';
import { errorMessage } from './guest-text.js';
import { HostHandoff } from './handoff-channel.js';
import { type ThreadClock, threadClock } from './thread-clock.js';

/** Where the worker entry is: beside this file in `dist`; from the sources (tests), the built copy. */
function workerUrl(): URL {
  const here = new URL('./guest-worker.js', import.meta.url);
  if (import.meta.url.endsWith('.js')) return here;
  const built = new URL('../../dist/internal/guest-worker.js', import.meta.url);
  if (!existsSync(built)) throw new Error('code-mode: dist/internal/guest-worker.js is missing; build the package first');
  return built;
}

/** How a worker ended its life, as the run that held it sees it. */
export interface WorkerExit {
  readonly outOfMemory: boolean;
  readonly message: string;
}

/** What a run listens to while it holds a worker. */
export interface WorkerListener {
  message(message: WorkerMessage): void;
  exit(exit: WorkerExit): void;
}

/**
 * How answers and reports cross during a run: `shared`, through a fresh
 * shared-memory hand-off per run (see `handoff-channel.ts`), or `port`, by
 * `postMessage` only. `auto` is `shared` when the worker's CPU time is read
 * as thread CPU time, and `port` with the busy-time clock, which would count
 * a worker waiting in `Atomics.wait` as busy.
 */
export type HandoffMode = 'auto' | 'shared' | 'port';

/**
 * One guest worker thread: the QuickJS engine runs there, so the host's
 * event loop never waits on guest work. The host stops the guest softly
 * with the shared stop flag (read by the interrupt handler) or at once with
 * `terminate()`.
 */
export class GuestWorker {
  readonly #worker: Worker;
  readonly #stop: Int32Array;
  readonly clock: Promise<ThreadClock>;
  #listener: WorkerListener | undefined;
  #ready: { memoryLimitBytes: number; key: string; promise: Promise<void>; settle: (failure?: string) => void } | undefined;
  #idleCpu: Promise<number> | undefined;
  #exited: WorkerExit | undefined;
  #failure: unknown;
  #shared: boolean;
  /** The hand-off of the run holding the worker, when it has one. */
  #handoff: HostHandoff | undefined;
  /**
   * The next run's hand-off, allocated while the worker idles: a fresh 64 KiB buffer costs up to
   * 0.2 ms of page faults, which a warm start should not pay. Never used by two runs.
   */
  #nextHandoff: HostHandoff | undefined;

  constructor(mode: HandoffMode = 'auto') {
    this.#shared = mode === 'shared';
    const stop = new SharedArrayBuffer(4);
    this.#stop = new Int32Array(stop);
    this.#worker = new Worker(workerUrl(), { workerData: { stop } });
    let hello: (tid: number | undefined) => void = () => undefined;
    this.clock = new Promise((resolve) => {
      hello = (tid) => {
        const clock = threadClock(this.#worker, tid);
        if (mode === 'auto') this.#shared = clock.kind === 'thread-cpu';
        resolve(clock);
      };
    });
    this.#worker.on('message', (message: WorkerMessage) => {
      if (message.t === 'hello') hello(message.tid);
      else if (message.t === 'ready') {
        // A ready for an earlier preparation (another cap or config) is not this one's.
        if (message.memoryLimitBytes !== this.#ready?.memoryLimitBytes || message.key !== this.#ready.key) return;
        // Read now, while the worker idles: the run that takes it starts its CPU budget from here without a read of its own.
        if (message.failure === undefined) {
          this.#idleCpu = this.clock.then((clock) => clock.read());
          if (this.#shared) this.#nextHandoff ??= this.#newHandoff();
        }
        this.#ready.settle(message.failure);
      } else this.#listener?.message(message);
    });
    this.#worker.on('error', (error) => {
      this.#failure = error;
    });
    this.#worker.on('exit', () => {
      const code = (this.#failure as { code?: unknown } | undefined)?.code;
      this.#exited = {
        outOfMemory: code === 'ERR_WORKER_OUT_OF_MEMORY',
        message: this.#failure === undefined ? 'the worker thread exited' : errorMessage(this.#failure),
      };
      hello(undefined);
      this.#closeHandoff();
      this.#ready?.settle(this.#exited.message);
      this.#listener?.exit(this.#exited);
    });
  }

  /** True once the thread is gone. */
  get exited(): boolean {
    return this.#exited !== undefined;
  }

  /**
   * Builds an instance with this memory cap ahead, its bootstrap installed for `config`;
   * `ready()` settles when it is built.
   */
  prepare(memoryLimitBytes: number, config: GuestConfig | undefined, kind: 'prepare' | 'end' = 'prepare'): void {
    const message: HostMessage = config === undefined ? { t: kind, memoryLimitBytes } : { t: kind, memoryLimitBytes, config };
    let settle: (failure?: string) => void = () => undefined;
    const promise = new Promise<void>((resolve, reject) => {
      settle = (failure) => (failure === undefined ? resolve() : reject(new Error(failure)));
    });
    promise.catch(() => undefined);
    this.#ready = { memoryLimitBytes, key: config === undefined ? '' : configKey(config), promise, settle };
    this.#idleCpu = undefined;
    if (this.#exited === undefined) this.#worker.postMessage(message);
    else settle(this.#exited.message);
  }

  /** True when the instance being prepared has this memory cap and, when `config` is given, its bootstrap for it. */
  preparedFor(memoryLimitBytes: number, config: GuestConfig | undefined): boolean {
    const ready = this.#ready;
    return ready !== undefined && ready.memoryLimitBytes === memoryLimitBytes && (config === undefined || ready.key === configKey(config));
  }

  /** Settles once the prepared instance is built; rejects when it could not be, or the thread is gone. */
  ready(): Promise<void> {
    return this.#ready?.promise ?? Promise.reject(new Error('no instance is being prepared'));
  }

  /**
   * The worker thread's CPU time once its instance was ready, read in the background: the thread
   * idles from then until a run starts, so a run's budget can count from this reading.
   */
  idleCpu(): Promise<number> {
    return this.#idleCpu ?? this.clock.then((clock) => clock.read());
  }

  /** Hands the worker to a run: its messages and its exit go to `listener`, and it keeps the process alive. */
  attach(listener: WorkerListener): void {
    this.#listener = listener;
    this.#closeHandoff();
    // A fresh buffer for every run: nothing an earlier run wrote can be read through it.
    if (this.#shared) this.#handoff = this.#nextHandoff ?? this.#newHandoff();
    this.#nextHandoff = undefined;
    Atomics.store(this.#stop, 0, 0);
    this.#worker.ref();
  }

  /** Takes the worker back from its run. */
  detach(): void {
    this.#listener = undefined;
    // A worker waiting on the run's hand-off goes back to its event loop, where the next message waits.
    this.#closeHandoff();
    // An idle worker never keeps the process alive.
    this.#worker.unref();
  }

  /** Sends a message of the run; a start or answers cross through the run's hand-off when it has one. */
  post(message: HostMessage): void {
    if (this.#exited !== undefined) return;
    const handoff = this.#handoff;
    if (handoff === undefined || (message.t !== 'start' && message.t !== 'answers')) {
      this.#worker.postMessage(message);
      return;
    }
    if (message.t === 'start') this.#worker.postMessage({ ...message, handoff: handoff.buffer });
    else if (!handoff.answer(message.items)) {
      // Too large for the buffer: posted, and the waiting worker is sent to its event loop to take it.
      this.#worker.postMessage(message);
      handoff.toPort();
    }
    handoff.expectReport();
  }

  /** Asks the guest to stop at its next interrupt check. */
  requestStop(): void {
    Atomics.store(this.#stop, 0, 1);
  }

  /** Stops the thread at once, wherever the guest is. */
  terminate(): void {
    this.#listener = undefined;
    this.#closeHandoff();
    void this.#worker.terminate().catch(() => undefined);
  }

  #newHandoff(): HostHandoff {
    return new HostHandoff((report) => this.#listener?.message(report));
  }

  #closeHandoff(): void {
    this.#handoff?.close();
    this.#handoff = undefined;
  }
}

/**
 * The guest workers of this process: one spare kept ready, with a QuickJS
 * instance already built, so a run starts without paying for a thread or an
 * instance. A worker whose run ended cleanly builds a fresh instance and
 * becomes the spare; a terminated one is replaced on the next idle turn.
 * Every run gets a fresh QuickJS instance whatever worker it runs in.
 */
export class WorkerPool {
  #spare: GuestWorker | undefined;

  /**
   * A worker with an instance of this memory cap ready; the caller owns it until `release`.
   * `config` is the run's: a worker started here installs its bootstrap ahead.
   */
  async take(memoryLimitBytes: number, config?: GuestConfig): Promise<GuestWorker> {
    const spare = this.#spare;
    this.#spare = undefined;
    if (spare !== undefined && !spare.exited) {
      try {
        return await this.#readied(spare, memoryLimitBytes, config);
      } catch {
        // A spare that died while idle: a fresh worker gets one chance below.
      }
    }
    return this.#readied(new GuestWorker(), memoryLimitBytes, config);
  }

  async #readied(worker: GuestWorker, memoryLimitBytes: number, config: GuestConfig | undefined): Promise<GuestWorker> {
    // Prepared for another cap or config: prepared again, before the run's budget starts.
    if (!worker.preparedFor(memoryLimitBytes, config)) worker.prepare(memoryLimitBytes, config);
    try {
      await worker.ready();
      await worker.clock;
    } catch (error) {
      worker.terminate();
      throw error;
    }
    return worker;
  }

  /**
   * Gives a worker back after its run: kept as the spare when it is healthy and none is kept, else
   * stopped. The next instance is prepared for the config of the run that ended, the likeliest next.
   */
  release(worker: GuestWorker, memoryLimitBytes: number, healthy: boolean, config?: GuestConfig): void {
    worker.detach();
    if (healthy && !worker.exited && this.#spare === undefined) {
      worker.prepare(memoryLimitBytes, config, 'end');
      this.#spare = worker;
      return;
    }
    worker.terminate();
    if (this.#spare === undefined) setImmediate(() => this.refill(memoryLimitBytes, config));
  }

  /** Settles once the spare (if any) has its instance ready, or failed to: what a warm start waits for. */
  async settled(): Promise<void> {
    await this.#spare?.ready().catch(() => undefined);
  }

  /** Starts a spare when there is none. */
  refill(memoryLimitBytes: number, config?: GuestConfig): void {
    if (this.#spare !== undefined && !this.#spare.exited) return;
    const worker = new GuestWorker();
    worker.prepare(memoryLimitBytes, config);
    worker.detach();
    this.#spare = worker;
  }
}

/** The process's guest workers, shared by every `codeMode` plugin (each run still gets a fresh instance). */
export const guestWorkers = new WorkerPool();
