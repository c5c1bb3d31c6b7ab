import { randomUUID } from 'node:crypto';
import { link, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { DshError, ErrorCode, messageOf } from './errors.js';
import { processExists } from './process-exists.js';

/**
 * The one-writer lock of a session log: a file `<log>.lock` beside it,
 * naming the process that writes the log. Held from `acquireSessionLock`
 * until `release`.
 */
export interface SessionLock {
  /** The session log this lock guards. */
  readonly logPath: string;
  /** The lock file, `<logPath>.lock`. */
  readonly path: string;
  /** False once released. */
  readonly held: boolean;
  /** Removes the lock file if it is still this lock's; later calls do nothing. */
  release(): Promise<void>;
}

interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly nonce: string;
}

function ownerOf(text: string): LockOwner | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockOwner> | null;
    // A pid that names no single process (0, negative, fractional) is as unreadable as no pid at all.
    const pid = value?.pid;
    if (typeof pid === 'number' && Number.isInteger(pid) && pid > 0 && typeof value?.host === 'string' && typeof value.nonce === 'string') {
      return { pid, host: value.host, nonce: value.nonce };
    }
  } catch {
    // An unreadable lock file is reported below as a lock nobody can vouch for.
  }
  return undefined;
}

/** Whether the owner is a process of this machine that no longer exists. */
function isStale(owner: LockOwner): boolean {
  if (owner.host !== hostname() || owner.pid === process.pid) return false;
  return !processExists(owner.pid);
}

function code(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

function locked(logPath: string, lockPath: string, detail: string): DshError {
  return new DshError(
    ErrorCode.SESSION_LOCKED,
    `the session log ${logPath} has a live writer (${detail}); one log takes one writer. ` +
      `If that writer is gone for sure, remove ${lockPath}.`,
    { data: { lock: lockPath } },
  );
}

/**
 * Takes the one-writer lock of the session log at `logPath`, or throws
 * `SESSION_LOCKED` naming the process that holds it. A lock left by a
 * process of this machine that no longer runs (a crash, a SIGKILL) is taken
 * over; a lock of another machine, or of a process that still runs, is not.
 * The lock file is written whole and then linked into place, so it never
 * exists half written, and a takeover moves the stale file aside and checks it
 * is the one it judged stale before removing it, so two resumers racing for
 * one stale lock cannot both win.
 */
export async function acquireSessionLock(logPath: string): Promise<SessionLock> {
  const lockPath = `${logPath}.lock`;
  const nonce = randomUUID();
  const draft = `${lockPath}.${nonce}`;
  await writeFile(draft, `${JSON.stringify({ pid: process.pid, host: hostname(), nonce, at: new Date().toISOString() })}\n`, {
    flag: 'wx',
  });
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await link(draft, lockPath);
        return heldLock(logPath, lockPath, nonce);
      } catch (error) {
        if (code(error) !== 'EEXIST') throw error;
      }
      let text: string;
      try {
        text = await readFile(lockPath, 'utf8');
      } catch (error) {
        if (code(error) === 'ENOENT') continue; // released meanwhile: try again
        throw error;
      }
      const owner = ownerOf(text);
      if (owner === undefined) throw locked(logPath, lockPath, 'an unreadable lock file');
      if (!isStale(owner)) throw locked(logPath, lockPath, `process ${owner.pid} on ${owner.host}`);
      await takeOver(logPath, lockPath, owner, nonce);
    }
    throw locked(logPath, lockPath, 'another process took the stale lock first');
  } finally {
    await unlink(draft).catch(() => undefined);
  }
}

/** Moves a stale lock aside; if what moved is not the stale lock (a racer's fresh one), puts it back and refuses. */
async function takeOver(logPath: string, lockPath: string, stale: LockOwner, nonce: string): Promise<void> {
  const aside = `${lockPath}.${nonce}.stale`;
  try {
    await rename(lockPath, aside);
  } catch (error) {
    if (code(error) === 'ENOENT') return;
    throw error;
  }
  const moved = ownerOf(await readFile(aside, 'utf8'));
  if (moved?.nonce === stale.nonce) {
    await unlink(aside);
    return;
  }
  await link(aside, lockPath).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
  throw locked(logPath, lockPath, `process ${moved?.pid ?? '?'} took the stale lock first`);
}

function heldLock(logPath: string, lockPath: string, nonce: string): SessionLock {
  let held = true;
  return {
    logPath,
    path: lockPath,
    get held() {
      return held;
    },
    async release() {
      if (!held) return;
      held = false;
      let text: string;
      try {
        text = await readFile(lockPath, 'utf8');
      } catch (error) {
        if (code(error) === 'ENOENT') return;
        throw new DshError(ErrorCode.SESSION_LOCKED, `could not read ${lockPath} to release it: ${messageOf(error)}`);
      }
      // Someone removed our lock by hand and another writer took it: theirs stays.
      if (ownerOf(text)?.nonce === nonce) await unlink(lockPath).catch(() => undefined);
    },
  };
}
