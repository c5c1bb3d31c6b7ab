import { execFileSync } from 'node:child_process';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf, fsHost, okOutput, type Scratch, scratch } from './fixtures/workspace.js';
import type { ReadOutput } from './tools/read.js';

let s: Scratch;
beforeEach(async () => {
  s = await scratch();
  await writeFile(path.join(s.outside, 'secret.txt'), 'top secret\n');
  await writeFile(path.join(s.ws, 'inside.txt'), 'hello\n');
});
afterEach(() => s.cleanup());

describe('confinement', () => {
  it('reads a file inside the root by relative and absolute path', async () => {
    const t = await fsHost(s.ws);
    expect(okOutput<ReadOutput>(await t.call('read', { file_path: 'inside.txt' })).content).toBe('     1\thello');
    expect(okOutput<ReadOutput>(await t.call('read', { file_path: path.join(s.ws, 'inside.txt') })).path).toBe(
      path.join(s.ws, 'inside.txt'),
    );
  });

  it('refuses ../ traversal out of the root with FS_PATH_TRAVERSAL', async () => {
    const t = await fsHost(s.ws);
    expect(errorOf(await t.call('read', { file_path: '../outside/secret.txt' })).code).toBe('FS_PATH_TRAVERSAL');
    expect(errorOf(await t.call('write', { file_path: 'sub/../../outside/new.txt', content: 'x' })).code).toBe('FS_PATH_TRAVERSAL');
  });

  it('refuses an absolute path outside every root with FS_PATH_OUTSIDE_ROOTS', async () => {
    const t = await fsHost(s.ws);
    expect(errorOf(await t.call('read', { file_path: path.join(s.outside, 'secret.txt') })).code).toBe('FS_PATH_OUTSIDE_ROOTS');
    expect(errorOf(await t.call('read', { file_path: '/etc/hostname' })).code).toBe('FS_PATH_OUTSIDE_ROOTS');
  });

  it('refuses a sibling that only shares the root as a name prefix with FS_PATH_SIBLING_PREFIX', async () => {
    await mkdir(`${s.ws}-evil`);
    await writeFile(`${s.ws}-evil/x.txt`, 'evil\n');
    const t = await fsHost(s.ws);
    expect(errorOf(await t.call('read', { file_path: `${s.ws}-evil/x.txt` })).code).toBe('FS_PATH_SIBLING_PREFIX');
    expect(errorOf(await t.call('write', { file_path: '../ws-evil/y.txt', content: 'x' })).code).toBe('FS_PATH_SIBLING_PREFIX');
  });

  it('refuses a symlink in the last component that points outside with FS_SYMLINK_ESCAPE', async () => {
    await symlink(path.join(s.outside, 'secret.txt'), path.join(s.ws, 'link.txt'));
    const t = await fsHost(s.ws);
    const error = errorOf(await t.call('read', { file_path: 'link.txt' }));
    expect(error.code).toBe('FS_SYMLINK_ESCAPE');
    expect(error.message).toContain(path.join(s.outside, 'secret.txt'));
    expect(errorOf(await t.call('write', { file_path: 'link.txt', content: 'pwned' })).code).toBe('FS_SYMLINK_ESCAPE');
    expect(await readFile(path.join(s.outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
  });

  it('refuses a symlinked parent directory that leads outside, for reads and for new files', async () => {
    await symlink(s.outside, path.join(s.ws, 'escape'));
    const t = await fsHost(s.ws);
    expect(errorOf(await t.call('read', { file_path: 'escape/secret.txt' })).code).toBe('FS_SYMLINK_ESCAPE');
    expect(errorOf(await t.call('write', { file_path: 'escape/new.txt', content: 'x' })).code).toBe('FS_SYMLINK_ESCAPE');
    expect(errorOf(await t.call('write', { file_path: 'escape/deeper/new.txt', content: 'x' })).code).toBe('FS_SYMLINK_ESCAPE');
    expect(errorOf(await t.call('list', { path: 'escape' })).code).toBe('FS_SYMLINK_ESCAPE');
  });

  it('refuses a dangling symlink whose target would be created outside', async () => {
    await symlink(path.join(s.outside, 'planted.txt'), path.join(s.ws, 'dangling'));
    const t = await fsHost(s.ws);
    expect(errorOf(await t.call('write', { file_path: 'dangling', content: 'x' })).code).toBe('FS_SYMLINK_ESCAPE');
  });

  it('refuses a symlink into /proc/self/root', async () => {
    await symlink('/proc/self/root', path.join(s.ws, 'procroot'));
    const t = await fsHost(s.ws);
    expect(errorOf(await t.call('read', { file_path: 'procroot/etc/hostname' })).code).toBe('FS_SYMLINK_ESCAPE');
  });

  it('refuses /proc and /dev files with FS_PSEUDO_FILESYSTEM, even when / is a root', async () => {
    const t = await fsHost(s.ws, { roots: ['/'] });
    expect(errorOf(await t.call('read', { file_path: '/proc/self/status' })).code).toBe('FS_PSEUDO_FILESYSTEM');
    expect(errorOf(await t.call('read', { file_path: '/dev/zero' })).code).toBe('FS_PSEUDO_FILESYSTEM');
    expect(errorOf(await t.call('write', { file_path: '/dev/null', content: 'x' })).code).toBe('FS_PSEUDO_FILESYSTEM');
  });

  it('refuses a FIFO without hanging, for read, edit and write', async () => {
    execFileSync('mkfifo', [path.join(s.ws, 'pipe')]);
    const t = await fsHost(s.ws);
    expect(errorOf(await t.call('read', { file_path: 'pipe' })).code).toBe('FS_SPECIAL_FILE');
    expect(errorOf(await t.call('edit', { file_path: 'pipe', old_string: 'a', new_string: 'b' })).code).toBe('FS_SPECIAL_FILE');
    expect(errorOf(await t.call('write', { file_path: 'pipe', content: 'x' })).code).toBe('FS_SPECIAL_FILE');
  });

  it('refuses a Unix socket with FS_SPECIAL_FILE', async () => {
    const socketPath = path.join(s.ws, 'sock');
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    try {
      const t = await fsHost(s.ws);
      expect(errorOf(await t.call('read', { file_path: 'sock' })).code).toBe('FS_SPECIAL_FILE');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses a NUL byte in a path with FS_PATH_NUL_BYTE', async () => {
    const t = await fsHost(s.ws);
    expect(errorOf(await t.call('read', { file_path: 'inside.txt\0../../etc/passwd' })).code).toBe('FS_PATH_NUL_BYTE');
  });

  it('lets a read-only root be read but never changed', async () => {
    const docs = path.join(s.base, 'docs');
    await mkdir(docs);
    await writeFile(path.join(docs, 'guide.md'), 'guide\n');
    const t = await fsHost(s.ws, { readOnlyRoots: [docs] });
    expect(okOutput<ReadOutput>(await t.call('read', { file_path: path.join(docs, 'guide.md') })).content).toContain('guide');
    expect(errorOf(await t.call('edit', { file_path: path.join(docs, 'guide.md'), old_string: 'guide', new_string: 'x' })).code).toBe(
      'FS_READ_ONLY_ROOT',
    );
    expect(errorOf(await t.call('write', { file_path: path.join(docs, 'new.md'), content: 'x' })).code).toBe('FS_READ_ONLY_ROOT');
  });

  it('follows symlinks that stay inside the root', async () => {
    await mkdir(path.join(s.ws, 'real'));
    await writeFile(path.join(s.ws, 'real', 'a.txt'), 'a\n');
    await symlink(path.join(s.ws, 'real'), path.join(s.ws, 'alias'));
    const t = await fsHost(s.ws);
    expect(okOutput<ReadOutput>(await t.call('read', { file_path: 'alias/a.txt' })).path).toBe(path.join(s.ws, 'real', 'a.txt'));
  });

  it('fails registration when a root does not exist', async () => {
    await expect(fsHost(path.join(s.base, 'missing'))).rejects.toThrow(/must be an existing directory/);
  });
});
