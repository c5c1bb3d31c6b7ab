import { link, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf, fsHost, okOutput, type Scratch, scratch } from './fixtures/workspace.js';
import type { GrepOutput } from './tools/grep.js';
import type { ReadOutput } from './tools/read.js';

let s: Scratch;
beforeEach(async () => {
  s = await scratch();
  await writeFile(path.join(s.outside, 'secret.txt'), 'top secret\n');
  await link(path.join(s.outside, 'secret.txt'), path.join(s.ws, 'linked.txt'));
});
afterEach(() => s.cleanup());

describe('hard links', () => {
  it('refuses to read a file with more than one link, with FS_HARD_LINK', async () => {
    const t = await fsHost(s.ws);
    const error = errorOf(await t.call('read', { file_path: 'linked.txt' }));
    expect(error.code).toBe('FS_HARD_LINK');
    expect(error.message).not.toContain('top secret');
  });

  it('refuses to edit or overwrite it, and the file outside keeps its content', async () => {
    const t = await fsHost(s.ws, { readBeforeEdit: false });
    expect(errorOf(await t.call('edit', { file_path: 'linked.txt', old_string: 'top', new_string: 'no' })).code).toBe('FS_HARD_LINK');
    expect(errorOf(await t.call('write', { file_path: 'linked.txt', content: 'x\n' })).code).toBe('FS_HARD_LINK');
    expect(await readFile(path.join(s.outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
  });

  it('leaves it out of grep results', async () => {
    await writeFile(path.join(s.ws, 'plain.txt'), 'top of the file\n');
    const t = await fsHost(s.ws, { search: 'builtin' });
    const out = okOutput<GrepOutput>(await t.call('grep', { pattern: 'top', output_mode: 'content' }));
    expect(out.content).toContain('plain.txt');
    expect(out.content).not.toContain('secret');
  });

  it('accepts such files under a directory listed in allowHardLinks, and only there', async () => {
    await mkdir(path.join(s.ws, 'store'));
    await link(path.join(s.outside, 'secret.txt'), path.join(s.ws, 'store', 'pkg.txt'));
    const t = await fsHost(s.ws, { allowHardLinks: ['store'] });
    expect(okOutput<ReadOutput>(await t.call('read', { file_path: 'store/pkg.txt' })).content).toBe('     1\ttop secret');
    expect(errorOf(await t.call('read', { file_path: 'linked.txt' })).code).toBe('FS_HARD_LINK');
  });

  it('reads a file with a single link as before', async () => {
    await writeFile(path.join(s.ws, 'one.txt'), 'one\n');
    const t = await fsHost(s.ws);
    expect(okOutput<ReadOutput>(await t.call('read', { file_path: 'one.txt' })).content).toBe('     1\tone');
  });
});
