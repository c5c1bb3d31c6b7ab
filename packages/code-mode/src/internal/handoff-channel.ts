import type { AnswerItem, GuestReport } from './guest-protocol.js';

// The per-run hand-off between the host and its guest worker through shared memory. During a run the
// worker does nothing between entries into the guest but wait for the host's answers, so it waits
// synchronously (`Atomics.wait`) and the host wakes it with `Atomics.notify`: a futex wake, where a
// `postMessage` also goes through the worker's event loop and its message dispatch (a bare round trip,
// `handoffRoundTrip` in bench/, is as fast as a `postMessage` echo on an idle machine and about 0.4× of
// it under load; a sub-call's share dropped from 79 to 32 µs of host-side time). The host waits for
// reports with `Atomics.waitAsync`, which never blocks its thread. Start and end of a run, console lines,
// the report of the program's end and any payload larger than the buffer still go by `postMessage`.
//
// One buffer per run (see {@link HostHandoff}): nothing one run wrote can be read by the next. Host and
// worker take turns (the host writes answers only after a report, the worker a report only after
// answers), so one slot serves both directions.

/** Bytes of one run's buffer. An answer of up to about 32,000 characters fits (2 bytes per UTF-16 unit). */
export const HANDOFF_BYTES = 64 * 1024;

// The header, in 32-bit words.
/** Bumped by the host after it wrote a command; the worker waits on it. */
const COMMAND_SEQ = 0;
/** Bumped by the worker after it wrote a report; the host waits on it. */
const REPORT_SEQ = 1;
/** What the host asks for: one of {@link Command}. */
const COMMAND = 2;
/** Answers: how many items. Report: how many UTF-16 units of outbox. */
const COUNT = 3;
/** Report: 0 no `warm`, 1 false, 2 true. */
const WARM = 4;
/** Report: console lines dropped so far, as a float64 at this byte offset. */
const DROPPED_BYTE = 24;
const HEADER_BYTES = 32;

/** What the host asks of a waiting worker. */
enum Command {
  /** Answers are in the buffer: deliver them and report. */
  answers = 1,
  /** The next message is on the port (answers too large for the buffer): go back to the event loop. */
  port = 2,
  /** The run is over: go back to the event loop. */
  leave = 3,
}

/** What a waiting worker is told: answers to deliver, or to go back to its event loop (`port`, `leave`). */
export type HandoffCommand =
  | { readonly kind: 'answers'; readonly items: AnswerItem[] }
  | { readonly kind: 'port' }
  | { readonly kind: 'leave' };

interface Views {
  readonly words: Int32Array;
  readonly bytes: Buffer;
  readonly dropped: Float64Array;
}

function viewsOf(buffer: SharedArrayBuffer): Views {
  return {
    words: new Int32Array(buffer, 0, HEADER_BYTES / 4),
    // UTF-16 units are copied raw ('utf16le'), so lone surrogates and NUL cross unchanged.
    bytes: Buffer.from(buffer),
    dropped: new Float64Array(buffer, DROPPED_BYTE, 1),
  };
}

/** Bytes a string takes in the buffer: its UTF-16 units, padded to a whole word. */
const textBytes = (text: string): number => (text.length * 2 + 3) & ~3;

type WaitAsync = (
  array: Int32Array,
  index: number,
  value: number,
) => { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> };
// ES2024's `Atomics.waitAsync` (Node 16 and later); this repository's lib is ES2023.
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

/**
 * The host's end of one run's hand-off. Created with a fresh buffer for
 * every run, and closed when the run lets go of its worker: a closed
 * hand-off reports nothing more, and a worker still waiting on it leaves.
 */
export class HostHandoff {
  readonly buffer = new SharedArrayBuffer(HANDOFF_BYTES);
  readonly #views = viewsOf(this.buffer);
  readonly #onReport: (report: GuestReport) => void;
  #commands = 0;
  /** The last report sequence number taken. */
  #reports = 0;
  #armed = false;
  #closed = false;

  constructor(onReport: (report: GuestReport) => void) {
    this.#onReport = onReport;
  }

  /**
   * Writes answers for the waiting worker and wakes it. False when they do
   * not fit: the caller posts them, then calls {@link toPort}.
   */
  answer(items: readonly AnswerItem[]): boolean {
    let size = HEADER_BYTES;
    for (const [, , text] of items) size += 12 + textBytes(text);
    if (size > HANDOFF_BYTES || this.#closed) return false;
    const { words, bytes } = this.#views;
    let at = HEADER_BYTES;
    for (const [index, ok, text] of items) {
      bytes.writeInt32LE(index, at);
      bytes.writeInt32LE(ok ? 1 : 0, at + 4);
      bytes.writeInt32LE(text.length, at + 8);
      bytes.write(text, at + 12, 'utf16le');
      at += 12 + textBytes(text);
    }
    words[COUNT] = items.length;
    this.#command(Command.answers);
    return true;
  }

  /** Sends the waiting worker back to its event loop, where a posted message waits for it. */
  toPort(): void {
    this.#command(Command.port);
  }

  /** Waits, without blocking, for the report the worker owes: it goes to `onReport` unless it comes by the port. */
  expectReport(): void {
    if (this.#armed || this.#closed) return;
    const wait = waitAsync(this.#views.words, REPORT_SEQ, this.#reports);
    if (!wait.async) {
      queueMicrotask(() => this.#take());
      return;
    }
    this.#armed = true;
    void wait.value.then(() => {
      this.#armed = false;
      this.#take();
    });
  }

  /** Ends the hand-off: a worker waiting on it leaves, and the host's own wait is released. */
  close(): void {
    if (this.#closed) return;
    this.#command(Command.leave);
    this.#closed = true;
    Atomics.notify(this.#views.words, REPORT_SEQ);
  }

  #command(command: Command): void {
    const { words } = this.#views;
    words[COMMAND] = command;
    // The store publishes the words written before it; the worker reads them after its load.
    Atomics.store(words, COMMAND_SEQ, ++this.#commands);
    Atomics.notify(words, COMMAND_SEQ);
  }

  #take(): void {
    if (this.#closed) return;
    const { words, bytes, dropped } = this.#views;
    const seq = Atomics.load(words, REPORT_SEQ);
    // A wake with nothing new (a report that came by the port): keep waiting for the next.
    if (seq === this.#reports) {
      this.expectReport();
      return;
    }
    this.#reports = seq;
    const outboxUnits = words[COUNT] as number;
    const warm = words[WARM];
    const report: { -readonly [K in keyof GuestReport]: GuestReport[K] } = {
      t: 'report',
      outbox: bytes.toString('utf16le', HEADER_BYTES, HEADER_BYTES + outboxUnits * 2),
      dropped: dropped[0] as number,
    };
    if (warm !== 0) report.warm = warm === 2;
    this.#onReport(report);
  }
}

/**
 * The worker's end of a run's hand-off. A report of the program's end, or
 * of the memory cap's lost calls, never goes this way: the port carries it
 * (it is rare, and the end's text can be long).
 */
export class GuestHandoff {
  readonly #views: Views;
  #commands = 0;
  #reports = 0;
  /** The host closed the hand-off: it writes nothing more, so waiting again would never end. */
  #left = false;

  constructor(buffer: SharedArrayBuffer) {
    this.#views = viewsOf(buffer);
  }

  /** Writes a report and wakes the host; false when it must go by the port instead. */
  report(report: GuestReport): boolean {
    if (report.end !== undefined || report.lost !== undefined) return false;
    if (HEADER_BYTES + textBytes(report.outbox) > HANDOFF_BYTES) return false;
    const { words, bytes, dropped } = this.#views;
    bytes.write(report.outbox, HEADER_BYTES, 'utf16le');
    words[COUNT] = report.outbox.length;
    words[WARM] = report.warm === undefined ? 0 : report.warm ? 2 : 1;
    dropped[0] = report.dropped;
    Atomics.store(words, REPORT_SEQ, ++this.#reports);
    Atomics.notify(words, REPORT_SEQ);
    return true;
  }

  /**
   * Blocks this thread until the host's next command. `worker.terminate()`
   * still ends it: V8 wakes a thread waiting in `Atomics.wait` to terminate it.
   */
  next(): HandoffCommand {
    if (this.#left) return { kind: 'leave' };
    const { words, bytes } = this.#views;
    Atomics.wait(words, COMMAND_SEQ, this.#commands);
    this.#commands = Atomics.load(words, COMMAND_SEQ);
    const command = words[COMMAND];
    if (command === Command.port) return { kind: 'port' };
    if (command !== Command.answers) {
      this.#left = true;
      return { kind: 'leave' };
    }
    const items: AnswerItem[] = [];
    let at = HEADER_BYTES;
    for (let i = 0, count = words[COUNT] as number; i < count; i += 1) {
      const units = bytes.readInt32LE(at + 8);
      items.push([bytes.readInt32LE(at), bytes.readInt32LE(at + 4) === 1, bytes.toString('utf16le', at + 12, at + 12 + units * 2)]);
      at += 12 + ((units * 2 + 3) & ~3);
    }
    return { kind: 'answers', items };
  }
}
