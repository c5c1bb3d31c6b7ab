import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processExists } from '@deepseek-ai/dsh-core';

/**
 * The empty files bwrap creates on the host as mount points for the stubs
 * that keep missing read-only paths from being created (see
 * `protectedLayout`). Each is held by the calls that mount it and removed
 * when the last one is over: removing it while a sandbox still runs would
 * detach that sandbox's mount, and the path could be created there. Only a
 * still-empty regular file is removed (anything else was made by someone
 * else); what a crash leaves is removed when this process exits.
 *
 * A process killed outright (SIGKILL, a power cut) runs no exit hook, so the
 * held paths are also written to a record file per process (see
 * `StubRecords`); a plugin that starts later removes the stubs of records
 * whose process is gone, unless a live one holds them too
 * (`sweepStaleStubs`).
 */
const holders = new Map<string, number>();
let exitHook = false;

/** Whether `path` is a stub some running call holds (it then looks like an existing empty file). */
export function isStub(path: string): boolean {
  return holders.has(path);
}

/**
 * Removes the stubs that killed processes left (else they would pass for
 * existing files): the bwrap provider does it as it probes, at plugin start.
 */
export function sweepStaleStubs(): void {
  records.sweep();
}

/** Holds `paths` for one call; the function returned releases them (once). */
export function holdStubs(paths: readonly string[]): () => void {
  if (paths.length === 0) return () => undefined;
  for (const path of paths) holders.set(path, (holders.get(path) ?? 0) + 1);
  records.write([...holders.keys()]);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const path of holders.keys()) removeStub(path);
      records.write([]);
    });
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    for (const path of paths) {
      const left = (holders.get(path) ?? 1) - 1;
      if (left > 0) holders.set(path, left);
      else {
        holders.delete(path);
        removeStub(path);
      }
    }
    records.write([...holders.keys()]);
  };
}

function removeStub(path: string): void {
  try {
    const stat = lstatSync(path);
    if (stat.isFile() && stat.size === 0) unlinkSync(path);
  } catch {
    // Never created (the sandbox did not start), or already gone.
  }
}

/** One process's held stubs, as its record file says. */
interface StubRecord {
  readonly pid: number;
  /** The process's start time (`/proc/<pid>/stat` field 22), so a reused pid is not taken for it. */
  readonly started: string;
  readonly paths: readonly string[];
}

/**
 * The record files, one per process holding stubs, in a private folder of
 * this user (`$TMPDIR/dsh-bash-stubs-<uid>`). Best effort: a folder that
 * cannot be written leaves stubs to the exit hook, as before.
 */
class StubRecords {
  readonly #dir = join(tmpdir(), `dsh-bash-stubs-${process.getuid?.() ?? 'user'}`);
  readonly #self = startTimeOf(process.pid);

  /** Writes this process's record (removes it when `paths` is empty). */
  write(paths: readonly string[]): void {
    const file = join(this.#dir, `${process.pid}.json`);
    try {
      if (paths.length === 0) {
        unlinkSync(file);
        return;
      }
      mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
      const record: StubRecord = { pid: process.pid, started: this.#self ?? '', paths };
      writeFileSync(`${file}.tmp`, JSON.stringify(record), { mode: 0o600 });
      renameSync(`${file}.tmp`, file);
    } catch {
      // Best effort (see the class).
    }
  }

  /** Removes the stubs of every record whose process is gone, except those a live record holds. */
  sweep(): void {
    let names: string[];
    try {
      names = readdirSync(this.#dir).filter((name) => name.endsWith('.json'));
    } catch {
      return;
    }
    const live = new Set<string>();
    const dead: { file: string; record: StubRecord }[] = [];
    for (const name of names) {
      const file = join(this.#dir, name);
      const record = readRecord(file);
      if (record === undefined) continue;
      if (record.pid !== process.pid && processExists(record.pid) && startTimeOf(record.pid) === record.started) {
        for (const path of record.paths) live.add(path);
      } else if (record.pid !== process.pid) dead.push({ file, record });
    }
    for (const { file, record } of dead) {
      for (const path of record.paths) if (!live.has(path)) removeStub(path);
      try {
        unlinkSync(file);
      } catch {
        // Another process swept it first.
      }
    }
  }
}

const records = new StubRecords();

function readRecord(file: string): StubRecord | undefined {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Partial<StubRecord>;
    if (typeof value.pid !== 'number' || typeof value.started !== 'string' || !Array.isArray(value.paths)) return undefined;
    return { pid: value.pid, started: value.started, paths: value.paths.filter((p): p is string => typeof p === 'string') };
  } catch {
    return undefined;
  }
}

/** Field 22 of `/proc/<pid>/stat` (start time in clock ticks since boot); undefined off Linux or when gone. */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may itself hold spaces.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}
