import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireSessionLock, DshError, openJsonlSink } from './index.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function logPath(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'dsh-lock-'));
  dirs.push(dir);
  return join(dir, 'session.jsonl');
}

/** The pid of a process that ran and exited: nothing runs under it now (barring reuse, which would only make a test refuse). */
function deadPid(): number {
  const run = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(run.stdout);
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return DshError.isInstance(error) ? error.code : `not a DshError: ${String(error)}`;
  }
  return undefined;
}

const lockOf = (pid: number, host = hostname(), nonce = 'n-1') => `${JSON.stringify({ pid, host, nonce })}\n`;

describe('the one-writer lock of a session log', () => {
  it('is held until released, refuses a second writer in the same process, and leaves no stray file', async () => {
    const log = await logPath();
    const lock = await acquireSessionLock(log);
    expect(lock.held).toBe(true);
    expect(JSON.parse(await readFile(`${log}.lock`, 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    const error = await acquireSessionLock(log).catch((e: unknown) => e);
    expect(DshError.isInstance(error) && error.code).toBe('SESSION_LOCKED');
    expect((error as Error).message).toMatch(new RegExp(`process ${process.pid}`));
    await lock.release();
    await lock.release();
    expect(lock.held).toBe(false);
    expect(await readdir(join(log, '..'))).toEqual([]);
    const again = await acquireSessionLock(log);
    await again.release();
  });

  it('takes over the lock of a process that died, and only one of two racers wins it', async () => {
    const log = await logPath();
    await writeFile(`${log}.lock`, lockOf(deadPid()));
    const settled = await Promise.allSettled([acquireSessionLock(log), acquireSessionLock(log)]);
    const won = settled.filter((s) => s.status === 'fulfilled');
    const lost = settled.filter((s) => s.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost.map((s) => DshError.isInstance(s.reason) && s.reason.code)).toEqual(['SESSION_LOCKED']);
    expect(JSON.parse(await readFile(`${log}.lock`, 'utf8')).pid).toBe(process.pid);
    await (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof acquireSessionLock>>>).value.release();
    expect(await readdir(join(log, '..'))).toEqual([]);
  });

  it.each([
    ['a live process', lockOf(process.ppid), `process ${process.ppid}`],
    ['another machine', lockOf(1, 'some-other-machine'), 'on some-other-machine'],
    ['an unreadable lock file', 'not json', 'an unreadable lock file'],
    // kill(0, 0) answers for the caller's own group: pid 0 once read as a live writer forever.
    ['a lock naming pid 0', lockOf(0), 'an unreadable lock file'],
    ['a lock naming pid -1', lockOf(-1), 'an unreadable lock file'],
  ])('refuses a lock held by %s, naming it, and leaves the lock file as it was', async (_what, content, named) => {
    const log = await logPath();
    await writeFile(`${log}.lock`, content);
    const error = await acquireSessionLock(log).catch((e: unknown) => e);
    expect(DshError.isInstance(error) && error.code).toBe('SESSION_LOCKED');
    expect((error as Error).message).toContain(named);
    expect(await readFile(`${log}.lock`, 'utf8')).toBe(content);
    expect(await readdir(join(log, '..'))).toEqual(['session.jsonl.lock']);
  });

  it('release leaves alone a lock that another writer took after this one was removed by hand', async () => {
    const log = await logPath();
    const lock = await acquireSessionLock(log);
    await writeFile(`${log}.lock`, lockOf(process.ppid, hostname(), 'theirs'));
    await lock.release();
    expect(await readFile(`${log}.lock`, 'utf8')).toContain('theirs');
  });

  it('openJsonlSink holds the lock while it writes and releases it on close', async () => {
    const log = await logPath();
    const sink = await openJsonlSink(log);
    expect(await codeOf(openJsonlSink(log))).toBe('SESSION_LOCKED');
    await sink.append({ seq: 1, at: 'now', session: 's', type: 'context/message', data: { text: 'x', parts: [] } });
    await sink.flush?.();
    await sink.close?.();
    expect(existsSync(`${log}.lock`)).toBe(false);
    expect(await readFile(log, 'utf8')).toContain('"context/message"');
  });
});
