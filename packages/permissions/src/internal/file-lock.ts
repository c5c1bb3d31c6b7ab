import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { processExists } from '@deepseek-ai/dsh-core';

/** Thrown when the lock could not be taken in time. */
export class LockTimeout extends Error {
  constructor(readonly lockPath: string) {
    super(`the lock ${lockPath} stayed held`);
  }
}

const staleAfterMs = 30_000;

/**
 * Runs `fn` holding an exclusive lock file next to `file` (`<file>.lock`,
 * created with O_EXCL). A lock whose owner process is gone (a zombie, dead
 * but not yet reaped, counts as gone), or that is older than 30 s, is
 * broken. Works across processes on one machine.
 */
export async function withFileLock<T>(file: string, timeoutMs: number, fn: () => Promise<T>): Promise<T> {
  const lockPath = `${file}.lock`;
  await mkdir(dirname(file), { recursive: true });
  const deadline = Date.now() + timeoutMs;
  let wait = 2;
  for (;;) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      try {
        await handle.writeFile(`${process.pid}\n${hostname()}\n`);
      } finally {
        await handle.close();
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (await breakIfStale(lockPath)) continue;
    if (Date.now() >= deadline) throw new LockTimeout(lockPath);
    await new Promise((resolve) => setTimeout(resolve, wait + Math.random() * wait));
    wait = Math.min(wait * 2, 50);
  }
  try {
    return await fn();
  } finally {
    await unlink(lockPath).catch(() => undefined);
  }
}

async function breakIfStale(lockPath: string): Promise<boolean> {
  try {
    const [text, info] = await Promise.all([readFile(lockPath, 'utf8'), stat(lockPath)]);
    const [pid, host] = text.split('\n');
    const owner = Number(pid);
    const dead = host === hostname() && Number.isInteger(owner) && owner > 0 && !processExists(owner);
    if (!dead && Date.now() - info.mtimeMs < staleAfterMs) return false;
    // Move it aside first, so two breakers cannot both remove a fresh lock.
    const aside = `${lockPath}.${randomUUID()}.stale`;
    await rename(lockPath, aside);
    await unlink(aside).catch(() => undefined);
    return true;
  } catch {
    // Gone or half-written (its owner is writing it now): try again.
    return false;
  }
}

/** Writes `text` to `file` atomically: a temporary file in the same directory, flushed, then renamed over it. */
export async function writeAtomically(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${randomUUID()}.tmp`;
  const handle = await open(temporary, 'w', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}
