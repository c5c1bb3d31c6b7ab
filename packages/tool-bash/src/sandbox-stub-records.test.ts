import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { workspace } from './fixtures/support.js';

// A crash record names empty files the next host's sweep deletes on the host. A record a sandboxed
// command could write (a TMPDIR inside the workspace), or one in a folder others may write (a shared
// /tmp folder of that name), must be ignored; a record this user's host left in its own folder is not.

const folderName = `dsh-bash-stubs-${process.getuid?.()}`;
const savedTmpdir = process.env.TMPDIR;
/** The real temporary folder, for workspaces made after TMPDIR is changed. */
const hostTmp = tmpdir();
afterEach(() => {
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
});

/** The sweep of a freshly loaded module, so it sees the TMPDIR just set (as a host started with it would). */
async function freshSweep(): Promise<(writableRoots: readonly string[]) => void> {
  vi.resetModules();
  return (await import('./sandbox/mount-stubs.js')).sweepStaleStubs;
}

/** A pid whose process is gone. */
function deadPid(): number {
  const pid = spawnSync('true').pid;
  if (pid === undefined) throw new Error('could not start true');
  return pid;
}

/** An empty host file in a folder of its own (outside every workspace of this file). */
function hostFile(): string {
  const path = join(workspace('dsh-bash-victim-', hostTmp), 'data');
  writeFileSync(path, '');
  return path;
}

/** Writes a record of a dead process naming `paths` in `<tmp>/dsh-bash-stubs-<uid>` (mode `mode`). */
function plantRecord(tmp: string, paths: readonly string[], mode = 0o700): void {
  const dir = join(tmp, folderName);
  mkdirSync(dir, { recursive: true, mode });
  chmodSync(dir, mode);
  const pid = deadPid();
  writeFileSync(join(dir, `${pid}.json`), JSON.stringify({ pid, started: '1', paths }), { mode: 0o600 });
}

describe('mount-stub crash records', () => {
  it('are not read from a TMPDIR inside a writable root: a planted record deletes nothing', async () => {
    const ws = workspace();
    const tmp = join(ws, 'tmp');
    process.env.TMPDIR = tmp;
    const sweepStaleStubs = await freshSweep();
    const victim = hostFile();
    plantRecord(tmp, [victim]);
    sweepStaleStubs([ws]);
    expect(existsSync(victim)).toBe(true);
  });

  it('are not read from a folder others may write', async () => {
    const tmp = workspace('dsh-bash-shared-tmp-', hostTmp);
    process.env.TMPDIR = tmp;
    const sweepStaleStubs = await freshSweep();
    const victim = hostFile();
    plantRecord(tmp, [victim], 0o777);
    sweepStaleStubs([]);
    expect(existsSync(victim)).toBe(true);
  });

  it('are read from this user’s own folder outside the writable roots: a dead host’s stubs go', async () => {
    const tmp = workspace('dsh-bash-own-tmp-', hostTmp);
    process.env.TMPDIR = tmp;
    const sweepStaleStubs = await freshSweep();
    const stub = hostFile();
    const notEmpty = hostFile();
    writeFileSync(notEmpty, 'kept');
    plantRecord(tmp, [stub, notEmpty, 'relative/path']);
    sweepStaleStubs([workspace('dsh-bash-ws-', hostTmp)]);
    expect(existsSync(stub)).toBe(false);
    expect(existsSync(notEmpty)).toBe(true);
  });
});
