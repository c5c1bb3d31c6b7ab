import { lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, normalize } from 'node:path';
import { processExists } from '@deepseek-ai/dsh-core';
import { candidateBases, noteWritablePaths, writablePathSeenHolding } from './private-directory.js';

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
 * (`sweepStaleStubs`). A record names files the sweep deletes on the host,
 * so records are kept, and read, only outside every path a sandbox may write.
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
 * `writableRoots` (the policy's) are noted first, so a record folder inside
 * them (a `TMPDIR` in the workspace) is neither read nor written.
 */
export function sweepStaleStubs(writableRoots: readonly string[]): void {
  noteWritablePaths(writableRoots);
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

const uid = process.getuid?.();
const recordFolderName = `dsh-bash-stubs-${uid ?? 'user'}`;

/**
 * The record files, one per process holding stubs, in a folder of this user
 * (`dsh-bash-stubs-<uid>`) on the first base of `candidateBases` that lies
 * outside every writable path seen (a sandboxed command could plant a record
 * there naming any empty file of the host) and whose folder is trusted (see
 * `trusted`: one made by another user in a shared /tmp is skipped). Best
 * effort: no usable folder leaves stubs to the exit hook, as before.
 */
class StubRecords {
  readonly #self = startTimeOf(process.pid);
  /** The record file this process last wrote, so a move to another folder removes it. */
  #written: string | undefined;

  /** Writes this process's record (removes it when `paths` is empty). */
  write(paths: readonly string[]): void {
    const dir = paths.length === 0 ? undefined : safeFolders(true)[0];
    const file = dir === undefined ? undefined : join(dir, `${process.pid}.json`);
    if (this.#written !== undefined && this.#written !== file) removeFile(this.#written);
    this.#written = undefined;
    if (file === undefined) return;
    try {
      const record: StubRecord = { pid: process.pid, started: this.#self ?? '', paths };
      writeFileSync(`${file}.tmp`, JSON.stringify(record), { mode: 0o600 });
      renameSync(`${file}.tmp`, file);
      this.#written = file;
    } catch {
      // Best effort (see the class).
    }
  }

  /** Removes the stubs of every trusted record whose process is gone, except those a live record holds. */
  sweep(): void {
    const live = new Set<string>();
    const dead: { file: string; record: StubRecord }[] = [];
    for (const dir of safeFolders(false)) {
      let names: string[];
      try {
        names = readdirSync(dir).filter((name) => /^\d+\.json$/.test(name));
      } catch {
        continue;
      }
      for (const name of names) {
        const file = join(dir, name);
        const record = trusted(file, 'file') ? readRecord(file) : undefined;
        if (record === undefined || record.pid === process.pid) continue;
        if (processExists(record.pid) && startTimeOf(record.pid) === record.started) {
          for (const path of record.paths) live.add(path);
        } else dead.push({ file, record });
      }
    }
    for (const { file, record } of dead) {
      for (const path of record.paths) if (!live.has(path)) removeStub(path);
      removeFile(file);
    }
  }
}

/**
 * The trusted record folders (realpaths) on the bases outside every writable
 * path seen; with `create`, only the first, made where missing (the one to
 * write to).
 */
function safeFolders(create: boolean): string[] {
  const found: string[] = [];
  for (const base of candidateBases()) {
    if (writablePathSeenHolding(base) !== undefined) continue;
    let dir: string;
    try {
      dir = join(realpathSync(base), recordFolderName);
    } catch {
      continue;
    }
    if (create) makeFolder(dir);
    if (trusted(dir, 'directory') && !found.includes(dir)) found.push(dir);
    // Writing needs only the first.
    if (create && found.length > 0) break;
  }
  return found;
}

function makeFolder(dir: string): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch {
    // There already (`trusted` decides whether it is usable), or the base is not writable.
  }
}

/** Whether `path` is a real (not symlinked) `kind` owned by this user that no one else may write. */
function trusted(path: string, kind: 'directory' | 'file'): boolean {
  try {
    const stats = lstatSync(path);
    const shape = kind === 'directory' ? stats.isDirectory() : stats.isFile();
    return shape && stats.uid === uid && (stats.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

function removeFile(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Gone already (another process swept it first).
  }
}

const records = new StubRecords();

function readRecord(file: string): StubRecord | undefined {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Partial<StubRecord>;
    if (typeof value.pid !== 'number' || typeof value.started !== 'string' || !Array.isArray(value.paths)) return undefined;
    // Stubs are absolute realpaths (see `protectedLayout`): anything else was not written by a host.
    const paths = value.paths.filter((p): p is string => typeof p === 'string' && isAbsolute(p) && normalize(p) === p);
    return { pid: value.pid, started: value.started, paths };
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
