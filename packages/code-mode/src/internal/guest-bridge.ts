import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten-core';
import { PROGRAM_FILE } from '../program-source.js';
import {
  type BootstrapConfig,
  bootstrapSource,
  DoneKind,
  HOST_DONE,
  HOST_LOG,
  LEDGER_HEADER_BYTES,
  ledgerNameBytes,
  ledgerSlots,
} from './bootstrap.js';
import { type GuestStringMaker, guestStringMaker } from './guest-strings.js';
import type { Sandbox } from './sandbox.js';

/** How the program ended, as the guest reports it through its `done` host function. */
export interface GuestDone {
  /** One of {@link DoneKind}; `undefined` when the guest sent something else. */
  readonly kind: number | undefined;
  /** The result's JSON text (cut at `maxResultChars`), or the thrown value's description as JSON; '' at the memory cap. */
  readonly text: string;
  /** The full length of the result's JSON text. */
  readonly totalChars: number | undefined;
  /** Console lines the guest dropped once it knew the buffer was full. */
  readonly droppedLines: number | undefined;
  /** How many calls the program had made when it ended (refused ones included). */
  readonly made: number | undefined;
}

/**
 * Every call a program made, read from the guest's ledger without running
 * guest code: how many it made, and the number of each one's name (an index
 * into the callable names plus one; 0 when unknown) for the first
 * `ledgerSlots` of them.
 */
export interface Ledger {
  readonly made: number;
  readonly nameAt: Uint16Array | Uint32Array;
}

/** What the guest's host functions report to. Called while the guest runs: they must not call back into it. */
export interface GuestListener {
  /** A console line; returns true once the log is full. */
  log(line: string): boolean;
  done(report: GuestDone): void;
}

interface Limits {
  readonly maxLogChars: number;
  readonly maxResultChars: number;
  readonly maxErrorChars: number;
}

interface Entry {
  readonly accept: QuickJSHandle;
  readonly run: QuickJSHandle;
  readonly describe: QuickJSHandle;
  readonly deliver: QuickJSHandle;
  readonly collect: QuickJSHandle;
  readonly ledger: QuickJSHandle;
  /** A buffer only this handle keeps alive: freeing it makes room to copy the ledger out at the memory cap. */
  readonly spare: QuickJSHandle;
}

const ENTRY_KEYS = ['accept', 'run', 'describe', 'deliver', 'collect', 'ledger', 'spare'] as const;

/**
 * The host side of the bridge to one sandbox: the two host functions, and the
 * bootstrap's entry points, held as handles for the run. Every method enters
 * the interpreter; the caller wraps each call in its deadline and treats a
 * throw (an interrupt, the memory cap, a crash) as the end of the run.
 * Only strings (and a number and a boolean for `deliver`) cross.
 */
export class GuestBridge {
  readonly #context: QuickJSContext;
  readonly #runtime: QuickJSRuntime;
  readonly #limits: Limits;
  readonly #listener: GuestListener;
  readonly #newString: GuestStringMaker;
  #entry: Entry | undefined;
  #config: BootstrapConfig | undefined;

  constructor(sandbox: Sandbox, limits: Limits, listener: GuestListener) {
    this.#context = sandbox.context;
    this.#runtime = sandbox.runtime;
    this.#limits = limits;
    this.#listener = listener;
    this.#newString = guestStringMaker(sandbox.context);
  }

  /** Installs the host functions and evaluates the bootstrap. */
  install(config: BootstrapConfig): void {
    const context = this.#context;
    const log = context.newFunction(HOST_LOG, (line) => this.#onLog(line));
    const done = context.newFunction(HOST_DONE, (...args) => this.#onDone(args));
    for (const [key, fn] of [
      [HOST_LOG, log],
      [HOST_DONE, done],
    ] as const) {
      context.setProp(context.global, key, fn);
      fn.dispose();
    }
    const entry = context.unwrapResult(context.evalCode(bootstrapSource(config), 'bootstrap.js'));
    try {
      const handles = Object.fromEntries(ENTRY_KEYS.map((key, i) => [key, context.getProp(entry, i)]));
      this.#entry = handles as unknown as Entry;
      this.#config = config;
    } finally {
      entry.dispose();
    }
  }

  /** Compiles the wrapped program under its file name: '' when the guest now holds it, else the error as JSON text. */
  compile(source: string): string {
    const context = this.#context;
    const { accept, describe } = this.#entryOrThrow();
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
  }

  /** Starts the program: it runs until its first wait. */
  start(): void {
    const context = this.#context;
    context.unwrapResult(context.callFunction(this.#entryOrThrow().run, context.undefined)).dispose();
  }

  /** Answers call `index`: `text` is the output's JSON when `ok`, else a `ToolCallError`'s JSON. */
  deliver(index: number, ok: boolean, text: string): void {
    const context = this.#context;
    const at = context.newNumber(index);
    // JSON text: no raw NUL, which the fast path could not carry.
    const answer = this.#newString(text);
    try {
      const flag = ok ? context.true : context.false;
      context.unwrapResult(context.callFunction(this.#entryOrThrow().deliver, context.undefined, at, flag, answer)).dispose();
    } finally {
      at.dispose();
      answer.dispose();
    }
  }

  /** Takes the calls made since the last collection: `name\nargs` pairs joined by `\n`, or ''. */
  collect(): string {
    const context = this.#context;
    // The bootstrap's collect returns a primitive string: no type check needed, no guest code runs in getString.
    const text = context.unwrapResult(context.callFunction(this.#entryOrThrow().collect, context.undefined));
    try {
      return context.getString(text);
    } finally {
      text.dispose();
    }
  }

  /** Runs the pending jobs; returns the engine's error message when the run of jobs failed (interrupted, out of memory). */
  runJobs(): string | undefined {
    const jobs = this.#runtime.executePendingJobs();
    if (jobs.error === undefined) return undefined;
    try {
      // Errors out of executePendingJobs are the engine's own: plain objects to read.
      const message = this.#context.getProp(jobs.error, 'message');
      try {
        return this.#context.typeof(message) === 'string' ? this.#context.getString(message).slice(0, 500) : 'unknown error';
      } finally {
        message.dispose();
      }
    } finally {
      jobs.error.dispose();
    }
  }

  /**
   * Copies the ledger out of the guest. The copy is the one allocation this
   * needs, and the spare buffer freed first is as large, so it works with
   * the memory at its cap; no guest code runs. Throws when the bootstrap is
   * not installed or the engine fails.
   */
  ledger(): Ledger {
    const entry = this.#entryOrThrow();
    const config = this.#config as BootstrapConfig;
    if (entry.spare.alive) entry.spare.dispose();
    const view = this.#context.getArrayBuffer(entry.ledger);
    let bytes: Uint8Array;
    try {
      bytes = view.value.slice();
    } finally {
      view.dispose();
    }
    const made = new DataView(bytes.buffer).getFloat64(0, true);
    const slots = ledgerSlots(config);
    const nameAt =
      ledgerNameBytes(config) === 2
        ? new Uint16Array(bytes.buffer, LEDGER_HEADER_BYTES, slots)
        : new Uint32Array(bytes.buffer, LEDGER_HEADER_BYTES, slots);
    return { made: Number.isSafeInteger(made) && made >= 0 ? made : 0, nameAt };
  }

  /** Releases the held handles (before the context is disposed). */
  dispose(): void {
    const entry = this.#entry;
    this.#entry = undefined;
    if (entry === undefined) return;
    for (const key of ENTRY_KEYS) if (entry[key].alive) entry[key].dispose();
  }

  #entryOrThrow(): Entry {
    if (this.#entry === undefined) throw new Error('the bootstrap is not installed');
    return this.#entry;
  }

  #onLog(handle: QuickJSHandle | undefined): QuickJSHandle {
    const json = this.#readString(handle, this.#limits.maxLogChars * 6 + 16);
    const line = json === undefined ? undefined : parseJsonString(json);
    const full = this.#listener.log(line ?? '[unreadable console output]');
    return full ? this.#context.true : this.#context.false;
  }

  #onDone([kind, text, total, dropped, made]: (QuickJSHandle | undefined)[]): void {
    const { maxResultChars, maxErrorChars } = this.#limits;
    const doneKind = this.#readNumber(kind);
    // At the memory cap the guest sends numbers only: reading a string copies it into guest memory.
    const readText = doneKind !== DoneKind.outOfMemory;
    this.#listener.done({
      kind: doneKind,
      text: readText ? (this.#readString(text, maxResultChars + maxErrorChars * 2 + 1024) ?? '') : '',
      totalChars: this.#readNumber(total),
      droppedLines: this.#readNumber(dropped),
      made: this.#readNumber(made),
    });
  }

  #readNumber(handle: QuickJSHandle | undefined): number | undefined {
    return handle !== undefined && this.#context.typeof(handle) === 'number' ? this.#context.getNumber(handle) : undefined;
  }

  /**
   * A guest string, or `undefined` when it is not one or is longer than `max`
   * characters. The bootstrap caps what it sends, and the sandbox's memory
   * bounds it anyway, so the length is checked after reading.
   */
  #readString(handle: QuickJSHandle | undefined, max: number): string | undefined {
    if (handle === undefined || this.#context.typeof(handle) !== 'string') return undefined;
    const text = this.#context.getString(handle);
    return text.length <= max ? text : undefined;
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
