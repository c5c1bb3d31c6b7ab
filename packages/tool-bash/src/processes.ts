import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseStat, procScanCounts } from './internal/proc-scan.js';

/** A live process, as `/proc` describes it. */
export interface ProcessInfo {
  readonly pid: number;
  readonly ppid: number;
  /** Process group id. */
  readonly pgid: number;
  /** The state letter from `/proc/<pid>/stat` (`R`, `S`, `D`, `T`, …); zombies are never listed. */
  readonly state: string;
  /** The command line, arguments joined by spaces. */
  readonly command: string;
}

/** Where to look for the marker. */
export interface MatchOptions {
  /** Match against the command line (default true). */
  readonly commandLine?: boolean;
  /** Match against the environment, `NAME=value` entries (default true). */
  readonly environment?: boolean;
}

/**
 * Every live process (zombies excluded, this process excluded) whose command
 * line or environment contains `marker`. Linux only: it reads `/proc`, and
 * throws where there is none. Tests use it to prove that a command left no
 * process behind: put a unique marker in the command line, or export it so
 * that every descendant inherits it (`export MARK=<uuid>; …`).
 */
export function processesMatching(marker: string, options: MatchOptions = {}): ProcessInfo[] {
  if (marker.length === 0) throw new TypeError('processesMatching needs a non-empty marker');
  const needle = Buffer.from(marker);
  const found: ProcessInfo[] = [];
  for (const pid of pids()) {
    // Zombies have an empty command line and environment, so they never match here.
    const command = options.commandLine === false ? undefined : readProc(pid, 'cmdline');
    const matched =
      command?.includes(needle) === true || (options.environment !== false && readProc(pid, 'environ')?.includes(needle) === true);
    if (!matched) continue;
    const info = processInfo(pid, command ?? readProc(pid, 'cmdline'));
    if (info !== undefined) found.push(publicInfo(info));
  }
  return found;
}

/**
 * Polls `processesMatching(marker)` until none is left or `timeoutMs` passes
 * (5 s by default), and resolves with what is still there (empty when clean).
 * For tests whose call may settle before the tree is fully gone.
 */
export async function waitForNoProcesses(
  marker: string,
  options: MatchOptions & { readonly timeoutMs?: number } = {},
): Promise<ProcessInfo[]> {
  const deadline = Date.now() + (options.timeoutMs ?? 5_000);
  for (;;) {
    const left = processesMatching(marker, options);
    if (left.length === 0 || Date.now() >= deadline) return left;
    await sleep(20);
  }
}

/**
 * Sends `signal` (SIGKILL by default) to every process `processesMatching`
 * finds; returns the pids signalled. For test clean-up after a failure.
 */
export function killProcessesMatching(marker: string, signal: NodeJS.Signals = 'SIGKILL', options: MatchOptions = {}): number[] {
  const signalled: number[] = [];
  for (const { pid } of processesMatching(marker, options)) {
    if (sendSignal(pid, signal)) signalled.push(pid);
  }
  return signalled;
}

/**
 * False when no process is left in group `pgid` (signal 0 answers ESRCH).
 * Checked after every command, so the error it throws is built without a
 * stack trace, which would cost more than the system call.
 */
export function groupMayExist(pgid: number): boolean {
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

/** Sends a signal to one pid (or a group, negative); false when it is gone. */
export function sendSignal(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Whether `/proc` can be read here (Linux). */
export function hasProc(): boolean {
  procReadable ??= probeProc();
  return procReadable;
}

let procReadable: boolean | undefined;

function probeProc(): boolean {
  try {
    readFileSync('/proc/self/stat');
    return true;
  } catch {
    return false;
  }
}

function pids(): number[] {
  procScanCounts.sync += 1;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    throw new Error('process scanning needs /proc (Linux)');
  }
  const self = process.pid;
  const out: number[] = [];
  for (const entry of entries) {
    const code = entry.charCodeAt(0);
    if (code < 48 || code > 57) continue;
    const pid = Number(entry);
    if (Number.isInteger(pid) && pid !== self) out.push(pid);
  }
  return out;
}

interface RawInfo {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  readonly state: string;
  readonly rawCommand: Buffer;
}

/** Reads `/proc/<pid>/stat`; undefined for a zombie or a process already gone. */
function processInfo(pid: number, rawCommand: Buffer | undefined): RawInfo | undefined {
  const stat = readProc(pid, 'stat')?.toString('latin1');
  const parsed = stat === undefined ? undefined : parseStat(stat);
  if (parsed === undefined) return undefined;
  return { pid, ppid: parsed.ppid, pgid: parsed.pgid, state: parsed.state, rawCommand: rawCommand ?? Buffer.alloc(0) };
}

function publicInfo(raw: RawInfo): ProcessInfo {
  const command = raw.rawCommand.toString('utf8').replace(/\0+$/, '').replaceAll('\0', ' ');
  return { pid: raw.pid, ppid: raw.ppid, pgid: raw.pgid, state: raw.state, command };
}

function readProc(pid: number, file: string): Buffer | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`);
  } catch {
    return undefined;
  }
}
