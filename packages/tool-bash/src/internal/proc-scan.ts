import { readdir, readFile } from 'node:fs/promises';

/**
 * How many full walks of `/proc` this process has made, by kind. A
 * synchronous walk reads one file per process on the event loop (thousands
 * under a fork bomb); the termination path must never make one, and the
 * tests check that it does not.
 */
export const procScanCounts = { sync: 0, async: 0 };

/** `pid (comm) state ppid pgrp …` of `/proc/<pid>/stat`, or undefined for a zombie, a dead or an unreadable process. */
export function parseStat(stat: string): { state: string; ppid: number; pgid: number; start: string } | undefined {
  // comm may itself contain spaces and parentheses: the fields start after the last ')'.
  const close = stat.lastIndexOf(')');
  if (close < 0) return undefined;
  const fields = stat.slice(close + 2).split(' ');
  const state = fields[0] ?? '?';
  if (state === 'Z' || state === 'X') return undefined;
  // Field 22, the start time, tells a process from a later one that reuses its pid.
  return { state, ppid: Number(fields[1]), pgid: Number(fields[2]), start: fields[19] ?? '' };
}

/** Bounds of one asynchronous scan. */
export interface ScanBounds {
  /** `performance.now()` value after which the scan stops and answers with what it found so far. */
  readonly deadline: number;
  /** Files read at once (libuv's pool has four threads; more only queues). */
  readonly concurrency?: number;
}

/** What one asynchronous scan found, and whether it saw every process. */
export interface ScanResult {
  readonly pids: readonly number[];
  readonly complete: boolean;
}

/**
 * Walks `/proc` without blocking the event loop: the listing and every file
 * are read through libuv's thread pool, a few at a time, and the walk stops at
 * `bounds.deadline`. `matches(pid)` decides for each process (this process
 * excluded). Answers `complete: false` when the deadline cut it short or
 * `/proc` cannot be listed.
 */
export async function scanProcessesAsync(matches: (pid: number) => Promise<boolean>, bounds: ScanBounds): Promise<ScanResult> {
  procScanCounts.async += 1;
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return { pids: [], complete: false };
  }
  const self = process.pid;
  const candidates = entries.filter((e) => e.charCodeAt(0) >= 48 && e.charCodeAt(0) <= 57).map(Number);
  const found: number[] = [];
  let next = 0;
  let complete = true;
  const worker = async (): Promise<void> => {
    while (next < candidates.length) {
      if (performance.now() >= bounds.deadline) {
        complete = false;
        return;
      }
      const pid = candidates[next++] as number;
      if (pid !== self && Number.isInteger(pid) && (await matches(pid))) found.push(pid);
    }
  };
  await Promise.all(Array.from({ length: bounds.concurrency ?? 4 }, worker));
  return { pids: found, complete };
}

/** Live processes whose environment holds `needle` (a `NAME=value` entry), found without blocking. */
export function markedProcessesAsync(needle: string, bounds: ScanBounds): Promise<ScanResult> {
  const bytes = Buffer.from(needle);
  return scanProcessesAsync(async (pid) => (await readProcAsync(pid, 'environ'))?.includes(bytes) === true, bounds);
}

/** Live (non-zombie) members of process group `pgid`, found without blocking. */
export function groupMembersAsync(pgid: number, bounds: ScanBounds): Promise<ScanResult> {
  return scanProcessesAsync(async (pid) => {
    const stat = await readProcAsync(pid, 'stat');
    return stat !== undefined && parseStat(stat.toString('latin1'))?.pgid === pgid;
  }, bounds);
}

async function readProcAsync(pid: number, file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(`/proc/${pid}/${file}`);
  } catch {
    return undefined;
  }
}
