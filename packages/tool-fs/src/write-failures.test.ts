import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf, fsHost, type Scratch, scratch } from './fixtures/workspace.js';

function tryRun(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

// These need root (mount, chattr); they skip cleanly elsewhere.
const isRoot = process.getuid?.() === 0;

let s: Scratch;
let mounted: string | undefined;
beforeEach(async () => {
  s = await scratch();
  mounted = undefined;
});
afterEach(async () => {
  if (mounted !== undefined) tryRun('umount', [mounted]);
  tryRun('chattr', ['-R', '-i', s.ws]);
  await s.cleanup();
});

async function smallTmpfs(): Promise<string | undefined> {
  const dir = path.join(s.ws, 'small');
  await mkdir(dir);
  if (!isRoot || !tryRun('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir])) return undefined;
  mounted = dir;
  return dir;
}

describe('writes that lose nothing', () => {
  it('turns ENOSPC into FS_NO_SPACE and leaves the original intact', async (ctx) => {
    const dir = await smallTmpfs();
    if (dir === undefined) return ctx.skip();
    const original = `${'a'.repeat(39)}\n`.repeat(1000);
    await writeFile(path.join(dir, 'f.txt'), original);
    const t = await fsHost(s.ws);
    await t.call('read', { file_path: 'small/f.txt' });
    const error = errorOf(await t.call('write', { file_path: 'small/f.txt', content: 'b'.repeat(60_000) }));
    expect(error.code).toBe('FS_NO_SPACE');
    expect(error.message).toContain('original is unchanged');
    expect(await readFile(path.join(dir, 'f.txt'), 'utf8')).toBe(original);
    expect(await readdir(dir)).toEqual(['f.txt']);
  });

  it('turns EROFS into FS_READ_ONLY_FILESYSTEM and leaves the original intact', async (ctx) => {
    const dir = await smallTmpfs();
    if (dir === undefined) return ctx.skip();
    await writeFile(path.join(dir, 'f.txt'), 'keep\n');
    const t = await fsHost(s.ws);
    await t.call('read', { file_path: 'small/f.txt' });
    if (!tryRun('mount', ['-o', 'remount,ro', dir])) return ctx.skip();
    expect(errorOf(await t.call('edit', { file_path: 'small/f.txt', old_string: 'keep', new_string: 'lose' })).code).toBe(
      'FS_READ_ONLY_FILESYSTEM',
    );
    expect(await readFile(path.join(dir, 'f.txt'), 'utf8')).toBe('keep\n');
  });

  it('turns a refused write into FS_PERMISSION_DENIED and leaves the original intact', async (ctx) => {
    const dir = path.join(s.ws, 'locked');
    await mkdir(dir);
    await writeFile(path.join(dir, 'f.txt'), 'keep\n');
    if (!isRoot || !tryRun('chattr', ['+i', dir])) return ctx.skip();
    const t = await fsHost(s.ws);
    await t.call('read', { file_path: 'locked/f.txt' });
    expect(errorOf(await t.call('edit', { file_path: 'locked/f.txt', old_string: 'keep', new_string: 'lose' })).code).toBe(
      'FS_PERMISSION_DENIED',
    );
    expect(await readFile(path.join(dir, 'f.txt'), 'utf8')).toBe('keep\n');
  });

  it('refuses to load a file over maxEditBytes for an edit', async () => {
    await writeFile(path.join(s.ws, 'big.txt'), 'x'.repeat(2000));
    const t = await fsHost(s.ws, { maxEditBytes: 1000 });
    await t.call('read', { file_path: 'big.txt' });
    expect(errorOf(await t.call('edit', { file_path: 'big.txt', old_string: 'x', new_string: 'y', replace_all: true })).code).toBe(
      'FS_FILE_TOO_LARGE',
    );
  });

  it('stops when the call is aborted', async () => {
    await writeFile(path.join(s.ws, 'f.txt'), 'a\n');
    const t = await fsHost(s.ws);
    const controller = new AbortController();
    controller.abort();
    const { results } = await t.host.runStep(
      { calls: [{ id: 'x', name: 'read', args: { file_path: 'f.txt' } }] },
      { signal: controller.signal },
    );
    expect(results[0]?.outcome).toMatchObject({ status: 'error', error: { code: 'ABORTED_BEFORE_DISPATCH' } });
  });
});
