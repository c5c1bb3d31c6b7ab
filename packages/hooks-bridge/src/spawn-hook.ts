import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { describeProcess } from './internal/process-state.js';

/** One run of a hook command. */
export interface HookProcessRequest {
  /** Shell form: the command line; exec form (with `args`): the program, looked up on PATH. */
  readonly command: string;
  readonly args?: readonly string[] | undefined;
  readonly shell: 'sh' | 'bash';
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Written to the hook's stdin, which is then closed. */
  readonly stdin: string;
  readonly timeoutMs: number;
  /** Time between SIGTERM and SIGKILL to the process group on timeout or abort. */
  readonly killGraceMs: number;
  /** How long to wait for the pipes to close once the hook exited, before its group is killed. */
  readonly drainMs: number;
  /** Kept per stream; the rest is counted and dropped. */
  readonly maxOutputBytes: number;
  readonly signal?: AbortSignal | undefined;
}

/** What one run gave. */
export interface HookProcessResult {
  /** Null when the process was killed by a signal or never started. */
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  readonly aborted: boolean;
  /** Set when the command could not be started. */
  readonly spawnError?: string;
  /** On timeout: what the hook's process was doing when time ran out (`sleeping in anon_pipe_read`), where Linux tells. */
  readonly stuck?: string;
  readonly durationMs: number;
  /** True when a stream passed `maxOutputBytes`. */
  readonly truncated: boolean;
}

/**
 * Runs a hook command in its own process group with the payload on stdin.
 * On timeout or abort the group gets SIGTERM, then SIGKILL after the grace
 * period. The run settles once the hook has exited and its pipes closed, or
 * `drainMs` after it exited even if a child it left behind still holds them;
 * whatever is left in its group is then killed, so no process outlives it.
 */
export function runHookProcess(request: HookProcessRequest): Promise<HookProcessResult> {
  const started = performance.now();
  return new Promise<HookProcessResult>((resolve) => {
    const file = request.args !== undefined ? request.command : request.shell === 'bash' ? 'bash' : '/bin/sh';
    const argv = request.args !== undefined ? [...request.args] : shellArgs(request.shell, request.command);
    const out = new Capped(request.maxOutputBytes);
    const err = new Capped(request.maxOutputBytes);
    let exitCode: number | null = null;
    let exitSignal: string | null = null;
    let exited = false;
    let timedOut = false;
    let aborted = false;
    let spawnError: string | undefined;
    let stuck: string | undefined;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const later = (ms: number, fn: () => void): void => {
      const timer = setTimeout(fn, ms);
      timers.push(timer);
    };

    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(file, argv, { cwd: request.cwd, env: request.env, stdio: 'pipe', detached: true, windowsHide: true });
    } catch (error) {
      resolve(result(null, null, '', '', false, false, (error as Error).message, started, false));
      return;
    }
    const pid = child.pid;
    const killGroup = (signal: NodeJS.Signals): void => {
      if (pid === undefined) return;
      try {
        process.kill(-pid, signal);
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    const settle = (): void => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      // Anything the hook left in its group dies with it.
      killGroup('SIGKILL');
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.stdin?.destroy();
      const run = result(
        exitCode,
        exitSignal,
        out.text(),
        err.text(),
        timedOut,
        aborted,
        spawnError,
        started,
        out.truncated || err.truncated,
      );
      resolve(stuck === undefined ? run : { ...run, stuck });
    };
    const stop = (): void => {
      killGroup('SIGTERM');
      later(request.killGraceMs, () => {
        killGroup('SIGKILL');
        // Settle even if no exit event comes (a process stuck in the kernel): nothing more can be done.
        later(request.drainMs + 1000, settle);
      });
    };
    const onAbort = (): void => {
      if (exited || timedOut || aborted) return;
      aborted = true;
      stop();
    };

    child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
    child.stdout?.on('error', () => undefined);
    child.stderr?.on('error', () => undefined);
    // A hook that never reads stdin closes the pipe under us: EPIPE is expected, not a failure.
    child.stdin?.on('error', () => undefined);
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (pid === undefined || !exited) spawnError = `${error.code ?? 'ERROR'}: ${error.message}`;
      if (pid === undefined) settle();
    });
    child.on('exit', (code, signal) => {
      exited = true;
      exitCode = code;
      exitSignal = signal;
      // After the drain timer, settle only after one more poll phase: on a stalled event loop the
      // timer can come due before the pipe's last output was read, and that output is the answer.
      later(request.drainMs, () => setImmediate(settle));
    });
    child.on('close', settle);
    if (pid === undefined) return;

    later(request.timeoutMs, () => {
      if (exited || aborted) return;
      timedOut = true;
      stuck = describeProcess(pid);
      stop();
    });
    if (request.signal?.aborted) onAbort();
    else request.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdin?.end(request.stdin);
  });
}

/**
 * `sh -c` or `bash --norc -c`. Node gives a child's stdin as a socket, and bash sources `~/.bashrc`
 * for a command whose stdin is a socket unless `SHLVL` says it is not a top-level shell (its rshd
 * rule). A task runner that clears the environment (turbo, systemd) makes every hook a top-level
 * shell: it would run the user's interactive set-up (a prompt, `pyenv rehash` waiting on a lock)
 * before the hook's command. The CLIs whose hooks run in bash never source it.
 */
function shellArgs(shell: 'sh' | 'bash', command: string): string[] {
  return shell === 'bash' ? ['--norc', '-c', command] : ['-c', command];
}

function result(
  exitCode: number | null,
  signal: string | null,
  stdout: string,
  stderr: string,
  timedOut: boolean,
  aborted: boolean,
  spawnError: string | undefined,
  started: number,
  truncated: boolean,
): HookProcessResult {
  const durationMs = Math.max(0, performance.now() - started);
  const base = { exitCode, signal, stdout, stderr, timedOut, aborted, durationMs, truncated };
  return spawnError === undefined ? base : { ...base, spawnError };
}

/** A byte buffer that keeps at most `limit` bytes. */
class Capped {
  readonly #limit: number;
  readonly #chunks: Buffer[] = [];
  #size = 0;
  truncated = false;

  constructor(limit: number) {
    this.#limit = limit;
  }

  push(chunk: Buffer): void {
    const room = this.#limit - this.#size;
    if (room <= 0) {
      this.truncated = true;
      return;
    }
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (kept !== chunk) this.truncated = true;
    this.#chunks.push(kept);
    this.#size += kept.length;
  }

  text(): string {
    return Buffer.concat(this.#chunks).toString('utf8');
  }
}
