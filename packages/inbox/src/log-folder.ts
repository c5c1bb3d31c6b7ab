import { type FSWatcher, watch } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { AnswerTarget } from './answer-target.js';
import { type InboxEvent, isDurable, type SessionSource, type SessionStore } from './session-store.js';

// Bytes read from one file per pass: a huge log is taken in slices, memory stays bounded.
const sliceBytes = 4 * 1024 * 1024;
// A line longer than this is not a log line: it is skipped, not buffered without end.
const maxLineBytes = 32 * 1024 * 1024;

interface Tail {
  offset: number;
  ino: number;
  partial: string;
  skipping: boolean;
  line: number;
  session: string | undefined;
  running: boolean | undefined;
}

/** Where a folder's sessions run, and where their answers go. */
export interface LogFolderOptions {
  /** `log` (dsh run's logs) by default; `restate` or `dbos` for a durable worker's `logDir`. */
  readonly source?: SessionSource;
  /** Takes the answers to the folder's sessions (a durable engine's approve client). */
  readonly answers?: AnswerTarget;
}

/**
 * A folder of JSONL session logs (`jsonlSink`'s files): each file is a
 * session, tailed as it grows. A `log` session runs while its writer holds
 * the log's `.lock` file; a durable one (whose workers hold the lock only
 * during a step) while a call of it has no result. Corrupt lines are
 * skipped and shown as problems; a folder or file that disappears is
 * reported and picked up again if it returns.
 */
export class LogFolder {
  readonly #tails = new Map<string, Tail>();
  // Every session this folder showed, so a vanished folder is reported on each, even one whose file went first.
  readonly #seen = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #watcher: FSWatcher | undefined;
  #scanning: Promise<void> | undefined;
  #again = false;
  #missing = false;
  #stopped = false;

  readonly source: SessionSource;
  readonly answers: AnswerTarget | undefined;

  constructor(
    readonly dir: string,
    private readonly store: SessionStore,
    private readonly pollMs: number,
    options: LogFolderOptions = {},
  ) {
    this.source = options.source ?? 'log';
    this.answers = options.answers;
  }

  /** Whether this folder shows `session` (a file of it was read). */
  shows(session: string): boolean {
    for (const tail of this.#tails.values()) if (tail.session === session) return true;
    return false;
  }

  async start(): Promise<void> {
    await this.scan();
    this.#timer = setInterval(() => void this.scan(), this.pollMs);
    this.#timer.unref();
    this.#watch();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#watcher?.close();
    await this.#scanning;
  }

  /** One pass over the folder; passes never overlap (a request during one runs one more after it). */
  scan(): Promise<void> {
    if (this.#scanning !== undefined) {
      this.#again = true;
      return this.#scanning;
    }
    this.#scanning = (async () => {
      do {
        this.#again = false;
        await this.#pass();
      } while (this.#again && !this.#stopped);
    })().finally(() => {
      this.#scanning = undefined;
    });
    return this.#scanning;
  }

  #watch(): void {
    if (this.#watcher !== undefined || this.#stopped) return;
    try {
      this.#watcher = watch(this.dir, () => void this.scan());
      this.#watcher.on('error', () => {
        this.#watcher?.close();
        this.#watcher = undefined;
      });
    } catch {
      // No folder (yet) or no watch support: polling finds the changes.
    }
  }

  async #pass(): Promise<void> {
    let names: string[];
    try {
      names = (await readdir(this.dir)).filter((n) => n.endsWith('.jsonl')).sort();
    } catch {
      if (!this.#missing) {
        this.#missing = true;
        for (const session of this.#seen) {
          this.store.problem(session, `INBOX_LOG_PROBLEM: the log folder ${this.dir} disappeared`);
          this.store.end(session);
        }
        this.#tails.clear();
        this.#watcher?.close();
        this.#watcher = undefined;
      }
      return;
    }
    if (this.#missing) {
      this.#missing = false;
      this.#watch();
    }
    for (const name of names) {
      if (this.#stopped) return;
      await this.#read(join(this.dir, name));
    }
    for (const [path, tail] of this.#tails) {
      if (names.includes(basename(path)) || tail.session === undefined) continue;
      this.store.problem(tail.session, `INBOX_LOG_PROBLEM: ${basename(path)} was removed`);
      this.store.end(tail.session);
      this.#tails.delete(path);
    }
  }

  async #read(path: string): Promise<void> {
    let tail = this.#tails.get(path);
    let info: Awaited<ReturnType<typeof stat>>;
    try {
      info = await stat(path);
    } catch {
      return;
    }
    if (tail !== undefined && (info.ino !== tail.ino || info.size < tail.offset)) {
      // Replaced or truncated: read it again from the start.
      if (tail.session !== undefined) {
        this.store.problem(tail.session, `INBOX_LOG_PROBLEM: ${basename(path)} was replaced or truncated; read again`);
        this.store.reset(tail.session);
      }
      tail = undefined;
    }
    if (tail === undefined) {
      tail = { offset: 0, ino: info.ino, partial: '', skipping: false, line: 0, session: undefined, running: undefined };
      this.#tails.set(path, tail);
    }
    if (info.size > tail.offset) await this.#readNew(path, tail, info.size);
    await this.#checkWriter(path, tail);
  }

  async #readNew(path: string, tail: Tail, size: number): Promise<void> {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(path, 'r');
    } catch {
      return;
    }
    try {
      while (tail.offset < size && !this.#stopped) {
        const length = Math.min(sliceBytes, size - tail.offset);
        const buffer = Buffer.allocUnsafe(length);
        const { bytesRead } = await handle.read(buffer, 0, length, tail.offset);
        if (bytesRead === 0) break;
        tail.offset += bytesRead;
        this.#lines(path, tail, buffer.subarray(0, bytesRead).toString('utf8'));
      }
    } finally {
      await handle.close();
    }
  }

  #lines(path: string, tail: Tail, text: string): void {
    const parts = (tail.partial + text).split('\n');
    tail.partial = parts.pop() ?? '';
    if (tail.partial.length > maxLineBytes) {
      tail.partial = '';
      tail.skipping = true;
    }
    for (const line of parts) {
      tail.line += 1;
      if (tail.skipping) {
        tail.skipping = false;
        this.#problem(path, tail, `line ${tail.line} is longer than ${maxLineBytes} bytes; skipped`);
        continue;
      }
      if (line.trim() === '') continue;
      this.#take(path, tail, line);
    }
  }

  #take(path: string, tail: Tail, line: string): void {
    let event: InboxEvent;
    try {
      event = JSON.parse(line) as InboxEvent;
    } catch {
      this.#problem(path, tail, `line ${tail.line} is not JSON (torn or corrupt); skipped`);
      return;
    }
    if (
      typeof event !== 'object' ||
      event === null ||
      typeof event.session !== 'string' ||
      typeof event.seq !== 'number' ||
      typeof event.type !== 'string'
    ) {
      this.#problem(path, tail, `line ${tail.line} is not a session event; skipped`);
      return;
    }
    if (tail.session === undefined) {
      tail.session = event.session;
      this.#seen.add(event.session);
      this.store.open(event.session, this.source, basename(path, '.jsonl'));
    } else if (event.session !== tail.session) {
      this.#problem(path, tail, `line ${tail.line} belongs to session ${event.session}; skipped`);
      return;
    }
    this.store.append(tail.session, event);
  }

  async #checkWriter(path: string, tail: Tail): Promise<void> {
    if (tail.session === undefined || isDurable(this.source)) return;
    let running = true;
    try {
      await stat(`${path}.lock`);
    } catch {
      running = false;
    }
    if (running === tail.running) return;
    if (!running) {
      // The writer removes its lock after its last line, so the log is final now, and it may have grown since this
      // pass read it: read the rest first, so that an ended session never shows fewer events than its log holds.
      const info = await stat(path).catch(() => undefined);
      if (info !== undefined && info.ino === tail.ino && info.size > tail.offset) await this.#readNew(path, tail, info.size);
    }
    tail.running = running;
    if (running) this.store.open(tail.session, this.source);
    else this.store.end(tail.session);
  }

  #problem(path: string, tail: Tail, message: string): void {
    const text = `INBOX_LOG_PROBLEM: ${basename(path)}: ${message}`;
    if (tail.session !== undefined) this.store.problem(tail.session, text);
  }
}
