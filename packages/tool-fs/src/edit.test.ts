import { chmod, link, lstat, readFile, readlink, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { callOf, stepOf } from '@deepseek-ai/dsh-core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf, fsHost, observed, okOutput, type Scratch, scratch } from './fixtures/workspace.js';
import type { EditOutput } from './tools/edit.js';

let s: Scratch;
beforeEach(async () => {
  s = await scratch();
});
afterEach(() => s.cleanup());

async function readThenEdit(file: string, content: string | Buffer, edit: Record<string, unknown>, tool = 'edit') {
  const p = path.join(s.ws, file);
  await writeFile(p, content);
  const t = await fsHost(s.ws);
  expect((await t.call('read', { file_path: file })).status).toBe('ok');
  const outcome = await t.call(tool, { file_path: file, ...edit });
  return { t, p, outcome };
}

describe('edit', () => {
  it('replaces a unique match and returns a unified diff', async () => {
    const { p, outcome } = await readThenEdit('a.ts', 'const a = 1;\nconst b = 2;\n', { old_string: 'b = 2', new_string: 'b = 3' });
    const out = okOutput<EditOutput>(outcome);
    expect(out.replacements).toEqual([1]);
    expect(out.diff).toContain('-const b = 2;\n+const b = 3;');
    expect(await readFile(p, 'utf8')).toBe('const a = 1;\nconst b = 3;\n');
  });

  it('says how many matches and where when old_string is not unique', async () => {
    const { p, outcome } = await readThenEdit('a.txt', 'x\ny\nx\nx\n', { old_string: 'x', new_string: 'z' });
    const error = errorOf(outcome);
    expect(error.code).toBe('FS_AMBIGUOUS_MATCH');
    expect(error.message).toContain('matches 3 times');
    expect(error.message).toContain('lines 1, 3, 4');
    expect(await readFile(p, 'utf8')).toBe('x\ny\nx\nx\n');
  });

  it('says there were 0 matches when old_string is absent', async () => {
    const { outcome } = await readThenEdit('a.txt', 'hello\n', { old_string: 'bye', new_string: 'x' });
    const error = errorOf(outcome);
    expect(error.code).toBe('FS_NO_MATCH');
    expect(error.message).toContain('0 matches');
  });

  it('replaces every occurrence with replace_all', async () => {
    const { p, outcome } = await readThenEdit('a.txt', 'x\ny\nx\n', { old_string: 'x', new_string: '$&z', replace_all: true });
    expect(okOutput<EditOutput>(outcome).replacements).toEqual([2]);
    expect(await readFile(p, 'utf8')).toBe('$&z\ny\n$&z\n');
  });

  it('refuses an edit that changes nothing', async () => {
    const { outcome } = await readThenEdit('a.txt', 'x\n', { old_string: 'x', new_string: 'x' });
    expect(errorOf(outcome).code).toBe('FS_NO_CHANGE');
  });

  it('keeps CRLF line endings, matching LF input against them', async () => {
    const { p, outcome } = await readThenEdit('w.txt', 'one\r\ntwo\r\nthree\r\n', { old_string: 'one\ntwo', new_string: 'uno\ndos' });
    expect(outcome.status).toBe('ok');
    expect(await readFile(p, 'utf8')).toBe('uno\r\ndos\r\nthree\r\n');
  });

  it('keeps a UTF-8 BOM and a missing final newline', async () => {
    const { p, outcome } = await readThenEdit('b.txt', '\uFEFFalpha\nbeta', { old_string: 'beta', new_string: 'gamma\n' });
    expect(outcome.status).toBe('ok');
    expect(await readFile(p, 'utf8')).toBe('\uFEFFalpha\ngamma');
  });

  it('keeps the final newline when new_string drops it', async () => {
    const { p } = await readThenEdit('c.txt', 'a\nlast\n', { old_string: 'last\n', new_string: 'end' });
    expect(await readFile(p, 'utf8')).toBe('a\nend\n');
  });

  it('keeps the file mode', async () => {
    const p = path.join(s.ws, 'run.sh');
    await writeFile(p, '#!/bin/sh\necho hi\n');
    await chmod(p, 0o755);
    const t = await fsHost(s.ws);
    await t.call('read', { file_path: 'run.sh' });
    expect((await t.call('edit', { file_path: 'run.sh', old_string: 'hi', new_string: 'bye' })).status).toBe('ok');
    expect((await stat(p)).mode & 0o777).toBe(0o755);
  });

  it('writes through a symlink inside the root and keeps the link', async () => {
    await writeFile(path.join(s.ws, 'target.txt'), 'old\n');
    await symlink('target.txt', path.join(s.ws, 'link.txt'));
    const t = await fsHost(s.ws);
    await t.call('read', { file_path: 'link.txt' });
    expect((await t.call('edit', { file_path: 'link.txt', old_string: 'old', new_string: 'new' })).status).toBe('ok');
    expect((await lstat(path.join(s.ws, 'link.txt'))).isSymbolicLink()).toBe(true);
    expect(await readlink(path.join(s.ws, 'link.txt'))).toBe('target.txt');
    expect(await readFile(path.join(s.ws, 'target.txt'), 'utf8')).toBe('new\n');
  });

  it('splits a hard link: the other name keeps the old content', async () => {
    await writeFile(path.join(s.ws, 'a.txt'), 'old\n');
    await link(path.join(s.ws, 'a.txt'), path.join(s.ws, 'b.txt'));
    const t = await fsHost(s.ws);
    await t.call('read', { file_path: 'a.txt' });
    await t.call('edit', { file_path: 'a.txt', old_string: 'old', new_string: 'new' });
    expect(await readFile(path.join(s.ws, 'b.txt'), 'utf8')).toBe('old\n');
  });

  it('refuses a file that is not valid UTF-8', async () => {
    const { outcome } = await readThenEdit('bad.txt', Buffer.from([0x61, 0xff, 0x0a]), { old_string: 'a', new_string: 'b' });
    expect(errorOf(outcome).code).toBe('FS_NOT_UTF8');
  });

  it('refuses a missing file and points at write', async () => {
    const t = await fsHost(s.ws);
    const error = errorOf(await t.call('edit', { file_path: 'none.txt', old_string: 'a', new_string: 'b' }));
    expect(error.code).toBe('FS_NOT_FOUND');
    expect(error.message).toContain('use write');
  });

  it('leaves no temp file behind', async () => {
    const { t } = await readThenEdit('a.txt', 'a\n', { old_string: 'a', new_string: 'b' });
    const listing = await t.call('list', { path: '.', include_ignored: true });
    expect(okOutput<{ entries: { name: string }[] }>(listing).entries.map((e) => e.name)).toEqual(['a.txt']);
  });

  it('shows the diff on the completed card, and a snippet diff on the pending card', async () => {
    const { t } = await readThenEdit('a.txt', 'alpha\nbeta\n', { old_string: 'beta', new_string: 'gamma' });
    const cards = t.ui.cards.filter((c) => c.card.title.startsWith('Edit'));
    expect(cards[0]).toMatchObject({ kind: 'pending', card: { format: 'diff' } });
    expect(cards[0]?.card.body).toContain('-beta');
    expect(cards[1]).toMatchObject({ kind: 'completed', card: { format: 'diff', summary: '1 replacement' } });
    expect(cards[1]?.card.body).toContain('+gamma');
  });

  it('serializes concurrent edits of one file from two hosts: both apply', async () => {
    const p = path.join(s.ws, 'shared.txt');
    await writeFile(p, 'A\nB\n');
    const t1 = await fsHost(s.ws);
    await t1.call('read', { file_path: 'shared.txt' });
    // Two calls of the same host at once (through runStep of separate steps) race on one file.
    const [one, two] = await Promise.all([
      t1.host.runStep(stepOf(callOf('edit', { file_path: 'shared.txt', old_string: 'A', new_string: 'A1' }))),
      t1.host.runStep(stepOf(callOf('edit', { file_path: 'shared.txt', old_string: 'B', new_string: 'B1' }))),
    ]);
    expect(one.results[0]?.outcome.status).toBe('ok');
    expect(two.results[0]?.outcome.status).toBe('ok');
    expect(await readFile(p, 'utf8')).toBe('A1\nB1\n');
  });
});

describe('multi_edit', () => {
  it('applies edits in order, each on the result of the one before', async () => {
    const { p, outcome } = await readThenEdit(
      'm.txt',
      'a b c\n',
      {
        edits: [
          { old_string: 'a', new_string: 'x' },
          { old_string: 'x b', new_string: 'y' },
        ],
      },
      'multi_edit',
    );
    expect(okOutput<EditOutput>(outcome).replacements).toEqual([1, 1]);
    expect(await readFile(p, 'utf8')).toBe('y c\n');
  });

  it('applies nothing when one edit fails, and names it', async () => {
    const { t, p, outcome } = await readThenEdit(
      'm.txt',
      'a b c\n',
      {
        edits: [
          { old_string: 'a', new_string: 'x' },
          { old_string: 'zzz', new_string: 'y' },
        ],
      },
      'multi_edit',
    );
    const error = errorOf(outcome);
    expect(error.code).toBe('FS_NO_MATCH');
    expect(error.message).toContain('edit 2 of 2');
    expect(await readFile(p, 'utf8')).toBe('a b c\n');
    expect(observed(t.host.events.list())).toHaveLength(1);
  });
});
