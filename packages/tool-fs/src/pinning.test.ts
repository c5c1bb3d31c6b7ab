import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DshError } from '@deepseek-ai/dsh-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf, fsHost, okOutput, type Scratch, scratch } from './fixtures/workspace.js';
import { canPinDirectories, PinnedDirectory } from './internal/pinned-dir.js';
import { Workspace } from './workspace.js';

let s: Scratch;
beforeEach(async () => {
  s = await scratch();
});
afterEach(() => s.cleanup());

describe('pinned directories', () => {
  it('refuses to run without /proc/self/fd rather than race (FS_UNSUPPORTED_PLATFORM)', () => {
    expect(canPinDirectories(s.ws)).toBe(true);
    expect(canPinDirectories(s.ws, path.join(s.base, 'no-proc'))).toBe(false);
    let thrown: unknown;
    try {
      Workspace.open(s.ws, [s.ws], [], [], path.join(s.base, 'no-proc'));
    } catch (error) {
      thrown = error;
    }
    expect(DshError.isInstance(thrown) && thrown.code).toBe('FS_UNSUPPORTED_PLATFORM');
  });

  it('refuses a directory that is not where it was checked, and never creates through a symlink', async () => {
    const ws = Workspace.open(s.ws, [s.ws], []);
    await symlink(s.outside, path.join(s.ws, 'link'));
    // The real path a check produced, now leading through a symlink to the outside.
    expect(() => PinnedDirectory.open(ws, path.join(s.ws, 'link'))).toThrow(/outside the workspace/);
    expect(() => PinnedDirectory.create(ws, path.join(s.ws, 'link', 'a', 'b'), s.ws)).toThrow(/outside the workspace/);
    expect(await readdir(s.outside)).toEqual([]);
    const made = PinnedDirectory.create(ws, path.join(s.ws, 'a', 'b'), s.ws);
    made.close();
    expect(made.real).toBe(path.join(s.ws, 'a', 'b'));
  });

  it('creates missing directories of a new file one level at a time', async () => {
    const t = await fsHost(s.ws);
    okOutput(await t.call('write', { file_path: 'x/y/z/new.txt', content: 'new\n' }));
    expect(await readFile(path.join(s.ws, 'x', 'y', 'z', 'new.txt'), 'utf8')).toBe('new\n');
    expect(await readdir(path.join(s.ws, 'x', 'y', 'z'))).toEqual(['new.txt']);
  });

  it('names a file in the way of a new directory with FS_NOT_A_DIRECTORY', async () => {
    await writeFile(path.join(s.ws, 'plain'), 'x\n');
    const t = await fsHost(s.ws);
    expect(errorOf(await t.call('write', { file_path: 'plain/new.txt', content: 'x' })).code).toBe('FS_NOT_A_DIRECTORY');
  });

  it('lists a directory through a checked descriptor', async () => {
    await mkdir(path.join(s.ws, 'd'));
    await writeFile(path.join(s.ws, 'd', 'a.txt'), 'a\n');
    const t = await fsHost(s.ws);
    expect(okOutput<{ entries: { name: string }[] }>(await t.call('list', { path: 'd' })).entries.map((e) => e.name)).toEqual(['a.txt']);
  });
});
