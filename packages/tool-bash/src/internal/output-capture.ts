import { createWriteStream, type WriteStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { TextWindow } from './text-window.js';

/** One of the two output streams of a command. */
export type StreamName = 'stdout' | 'stderr';

/** What the capture needs to know. */
export interface CaptureOptions {
  /** Characters (UTF-16 code units) kept per view; more keeps head and tail. */
  readonly maxChars: number;
  /** Bytes (both streams together) after which the command must be killed. */
  readonly maxBytes: number;
  /** Where the full combined output goes once it cannot be kept in full; called at most once. */
  readonly fullOutputPath: () => string;
  /** Decoded text as it arrives, for live progress. */
  readonly onText?: (stream: StreamName, text: string) => void;
}

/** What a command wrote, bounded. */
export interface CapturedOutput {
  /** stdout and stderr interleaved in the order their chunks arrived. */
  readonly output: string;
  readonly stdout: string;
  readonly stderr: string;
  /** True when any view dropped text in the middle. */
  readonly truncated: boolean;
  /** The file holding every byte the command wrote (both streams, arrival order), when `output` was truncated. */
  readonly fullOutputPath?: string;
  /** Why the full output could not be saved, when it could not. */
  readonly fullOutputError?: string;
  readonly bytes: { readonly stdout: number; readonly stderr: number };
  /** True when the command wrote more than `maxBytes`; what came after was dropped. */
  readonly limitExceeded: boolean;
}

/**
 * Captures a command's two streams with streaming UTF-8 decoders (a character
 * split across chunks survives; invalid bytes become U+FFFD), keeps head and
 * tail of each view within `maxChars`, and spills the raw combined bytes to a
 * file once they no longer fit. Memory stays bounded: the spill file applies
 * back-pressure (`whenDrained`) instead of buffering.
 */
export class OutputCapture {
  readonly #options: CaptureOptions;
  readonly #decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
  readonly #views: { stdout: TextWindow; stderr: TextWindow; output: TextWindow };
  readonly #bytes = { stdout: 0, stderr: 0 };
  #pending: Buffer[] = [];
  #file: WriteStream | undefined;
  #path: string | undefined;
  #fileError: string | undefined;
  #drained: Promise<void> | undefined;
  #limitExceeded = false;

  constructor(options: CaptureOptions) {
    this.#options = options;
    this.#views = {
      stdout: new TextWindow(options.maxChars),
      stderr: new TextWindow(options.maxChars),
      output: new TextWindow(options.maxChars),
    };
  }

  /** Total bytes taken in so far. */
  get totalBytes(): number {
    return this.#bytes.stdout + this.#bytes.stderr;
  }

  /** Takes a chunk; answers `limit` once the byte cap is passed (later chunks are dropped). */
  push(stream: StreamName, chunk: Buffer): 'ok' | 'limit' {
    if (this.#limitExceeded) return 'limit';
    let data = chunk;
    const room = this.#options.maxBytes - this.totalBytes;
    if (data.length > room) {
      data = data.subarray(0, Math.max(0, room));
      this.#limitExceeded = true;
    }
    if (data.length > 0) {
      this.#bytes[stream] += data.length;
      this.#spill(data);
      this.#text(stream, this.#decoders[stream].write(data));
    }
    return this.#limitExceeded ? 'limit' : 'ok';
  }

  /** A promise while the spill file is behind (pause the sources until it settles), else undefined. */
  whenDrained(): Promise<void> | undefined {
    return this.#drained;
  }

  /** Flushes the decoders, closes the spill file and renders the views. */
  async finish(): Promise<CapturedOutput> {
    for (const stream of ['stdout', 'stderr'] as const) this.#text(stream, this.#decoders[stream].end());
    await this.#closeFile();
    const where =
      this.#path !== undefined && this.#fileError === undefined
        ? `; the full output is in ${this.#path}`
        : this.#fileError === undefined
          ? ''
          : `; the full output could not be saved (${this.#fileError})`;
    const output = this.#views.output.render((n) => `\n\n… [${n} characters omitted${where}] …\n\n`);
    const stdout = this.#views.stdout.render((n) => `\n\n… [${n} characters of stdout omitted] …\n\n`);
    const stderr = this.#views.stderr.render((n) => `\n\n… [${n} characters of stderr omitted] …\n\n`);
    let fullOutputPath: string | undefined;
    if (this.#path !== undefined && this.#fileError === undefined) {
      if (output.omitted > 0) fullOutputPath = this.#path;
      else await unlink(this.#path).catch(() => undefined);
    }
    return {
      output: output.text,
      stdout: stdout.text,
      stderr: stderr.text,
      truncated: output.omitted > 0 || stdout.omitted > 0 || stderr.omitted > 0,
      ...(fullOutputPath === undefined ? {} : { fullOutputPath }),
      ...(this.#fileError === undefined || output.omitted === 0 ? {} : { fullOutputError: this.#fileError }),
      bytes: { ...this.#bytes },
      limitExceeded: this.#limitExceeded,
    };
  }

  #text(stream: StreamName, text: string): void {
    if (text.length === 0) return;
    this.#views[stream].append(text);
    this.#views.output.append(text);
    this.#options.onText?.(stream, text);
  }

  /**
   * Raw bytes are kept in memory only while they could still all fit in the
   * views (bytes ≥ characters in UTF-8); past that the file takes them.
   */
  #spill(data: Buffer): void {
    if (this.#fileError !== undefined) return;
    if (this.#file === undefined) {
      this.#pending.push(Buffer.from(data));
      if (this.totalBytes <= this.#options.maxChars) return;
      this.#openFile();
      const pending = Buffer.concat(this.#pending);
      this.#pending = [];
      this.#write(pending);
      return;
    }
    this.#write(data);
  }

  #openFile(): void {
    try {
      this.#path = this.#options.fullOutputPath();
      this.#file = createWriteStream(this.#path, { flags: 'wx', mode: 0o600 });
    } catch (error) {
      this.#fileError = (error as Error).message;
      return;
    }
    this.#file.on('error', (error) => {
      this.#fileError ??= error.message;
      this.#release();
    });
  }

  #write(data: Buffer): void {
    const file = this.#file;
    if (file === undefined || this.#fileError !== undefined) return;
    if (!file.write(data) && this.#drained === undefined) {
      this.#drained = new Promise<void>((resolve) => {
        const done = (): void => {
          file.off('drain', done);
          file.off('close', done);
          this.#drained = undefined;
          resolve();
        };
        file.on('drain', done);
        file.on('close', done);
      });
    }
  }

  #release(): void {
    this.#file?.destroy();
  }

  #closeFile(): Promise<void> {
    const file = this.#file;
    if (file === undefined || file.destroyed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      file.once('close', () => resolve());
      file.end();
    });
  }
}
