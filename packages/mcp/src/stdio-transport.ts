import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { wireParse, wireStringify } from './internal/lossless-wire.js';
import { groupAlive, killGroup, trackGroup, untrackGroup } from './internal/process-groups.js';
import { StderrBuffer } from './stderr-buffer.js';

/** How to start a stdio server and how much of it to keep. */
export interface StdioTransportOptions {
  readonly command: string;
  readonly args?: readonly string[];
  /** Added to the SDK's safe inherited environment (`HOME`, `PATH`, `SHELL`, `TERM`, `USER`, `LOGNAME`). */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Bytes of stderr kept for diagnostics (the tail). Default 64 KiB. */
  readonly stderrBytes?: number;
  /** Longest line (one JSON-RPC message) accepted from the server, in bytes; beyond it the server is stopped. Default 64 MiB. */
  readonly maxMessageBytes?: number;
  /** Between SIGTERM and SIGKILL to the process group on close (ms). Default 2000. */
  readonly killGraceMs?: number;
}

/**
 * The MCP stdio transport with the server in its own process group:
 * `close()` signals the whole group (SIGTERM, then SIGKILL after a grace
 * period), and a group still alive when Node exits is killed with SIGKILL.
 * Messages are newline-delimited JSON read and written without rounding
 * numbers; stderr is kept in a bounded buffer. Implements the SDK's
 * `Transport`, so the SDK's `Client` drives it.
 */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  /** The protocol version agreed at `initialize` (the SDK's client tells its transport). */
  protocolVersion: string | undefined;
  /** The tail of the server's stderr. */
  readonly stderr: StderrBuffer;
  readonly #options: StdioTransportOptions;
  readonly #maxMessageBytes: number;
  #child: ChildProcessWithoutNullStreams | undefined;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #exited: Promise<void> | undefined;
  #closed = false;
  #exitInfo: { readonly code: number | null; readonly signal: NodeJS.Signals | null } | undefined;

  constructor(options: StdioTransportOptions) {
    this.#options = options;
    this.stderr = new StderrBuffer(options.stderrBytes ?? 64 * 1024);
    this.#maxMessageBytes = options.maxMessageBytes ?? 64 * 1024 * 1024;
  }

  /** The server's pid (also its process group id), once started. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** How the process ended (exit code or signal), once it has. */
  get exit(): { readonly code: number | null; readonly signal: NodeJS.Signals | null } | undefined {
    return this.#exitInfo;
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  start(): Promise<void> {
    if (this.#child !== undefined) return Promise.reject(new Error('the stdio transport was already started'));
    return new Promise((resolve, reject) => {
      const child = spawn(this.#options.command, [...(this.#options.args ?? [])], {
        cwd: this.#options.cwd,
        env: { ...getDefaultEnvironment(), ...this.#options.env },
        stdio: ['pipe', 'pipe', 'pipe'],
        // Its own process group, so close() can stop everything it started.
        detached: true,
        windowsHide: true,
      });
      this.#child = child;
      this.#exited = new Promise((done) => {
        child.once('close', (code, signal) => {
          this.#exitInfo = { code, signal };
          if (child.pid !== undefined) {
            // Members left behind by a leader that exited on its own are stopped too.
            if (groupAlive(child.pid)) killGroup(child.pid, 'SIGKILL');
            untrackGroup(child.pid);
          }
          done();
          this.onclose?.();
        });
      });
      child.once('error', (error) => {
        if (child.pid === undefined) {
          reject(error);
          // No process: 'close' may not follow, so settle here.
          this.#closed = true;
          this.onclose?.();
        } else {
          this.onerror?.(error);
        }
      });
      child.once('spawn', () => {
        if (child.pid !== undefined) trackGroup(child.pid);
        resolve();
      });
      child.stdin.on('error', (error) => this.onerror?.(error));
      child.stdout.on('error', (error) => this.onerror?.(error));
      child.stderr.on('data', (chunk: Buffer) => this.stderr.push(chunk));
      child.stdout.on('data', (chunk: Buffer) => this.#read(chunk));
    });
  }

  #read(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      const line = this.#pending.length === 0 ? piece : Buffer.concat([...this.#pending, piece]);
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#deliver(line);
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.#pending.push(rest);
      this.#pendingBytes += rest.length;
      if (this.#pendingBytes > this.#maxMessageBytes) {
        this.#pending = [];
        this.#pendingBytes = 0;
        this.onerror?.(new Error(`the server sent a message longer than ${this.#maxMessageBytes} bytes; stopping it`));
        void this.close();
      }
    }
  }

  #deliver(line: Buffer): void {
    const text = line.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(wireParse(text));
    } catch (error) {
      this.onerror?.(new Error(`the server wrote a line that is not a JSON-RPC message: ${(error as Error).message.slice(0, 200)}`));
      return;
    }
    this.onmessage?.(message);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const child = this.#child;
    if (child === undefined || this.#closed || !child.stdin.writable) {
      return Promise.reject(new Error('the server process is not running'));
    }
    const text = `${wireStringify(message)}\n`;
    return new Promise((resolve, reject) => {
      const flushed = child.stdin.write(text, (error) => (error ? reject(error) : undefined));
      if (flushed) resolve();
      else child.stdin.once('drain', () => resolve());
    });
  }

  /**
   * Waits at most `boundMs` for the process to end on its own; true once it has. A server that
   * closed its pipes is on its way out, and its exit code and the rest of its stderr say why.
   */
  async endsWithin(boundMs: number): Promise<boolean> {
    if (this.#exited === undefined) return false;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((done) => {
      timer = setTimeout(done, boundMs);
    });
    await Promise.race([this.#exited, bound]);
    clearTimeout(timer);
    return this.#exitInfo !== undefined;
  }

  /** Stops the server: SIGTERM to its process group, SIGKILL after the grace period. Settles once the leader exited. */
  async close(): Promise<void> {
    const child = this.#child;
    if (this.#closed || child === undefined) return;
    this.#closed = true;
    const pid = child.pid;
    if (pid === undefined) return;
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin.end();
      killGroup(pid, 'SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const graced = new Promise<void>((done) => {
        timer = setTimeout(done, this.#options.killGraceMs ?? 2_000);
      });
      await Promise.race([this.#exited, graced]);
      clearTimeout(timer);
      killGroup(pid, 'SIGKILL');
    } else if (groupAlive(pid)) {
      killGroup(pid, 'SIGKILL');
    }
    await this.#exited;
    await groupGone(pid, this.#options.killGraceMs ?? 2_000);
  }
}

/** Waits (briefly) until killed members of the group have been reaped, so "closed" means "gone". */
async function groupGone(pgid: number, boundMs: number): Promise<void> {
  const until = performance.now() + Math.max(boundMs, 100);
  while (groupAlive(pgid) && performance.now() < until) {
    killGroup(pgid, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
