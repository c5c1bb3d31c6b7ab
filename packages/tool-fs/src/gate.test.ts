import { readFile, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { jsonlSink, loadSessionLog } from '@deepseek-ai/dsh-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { denialOf, fsHost, okOutput, type Scratch, scratch } from './fixtures/workspace.js';
import { ReadLedger } from './read-ledger.js';

let s: Scratch;
let file: string;
beforeEach(async () => {
  s = await scratch();
  file = path.join(s.ws, 'a.txt');
  await writeFile(file, 'one\ntwo\n');
});
afterEach(() => s.cleanup());

describe('read-before-edit', () => {
  it('vetoes an edit of a file not read in this session, telling the model to read it', async () => {
    const t = await fsHost(s.ws);
    const error = denialOf(await t.call('edit', { file_path: 'a.txt', old_string: 'one', new_string: '1' }));
    expect(error.code).toBe('FS_NOT_READ');
    expect(error.reason).toContain('Read it first');
    expect(error).toMatchObject({ stage: 'execute', by: 'tool-fs/read-before-edit' });
    expect(await readFile(file, 'utf8')).toBe('one\ntwo\n');
  });

  it('vetoes an overwrite of a file not read', async () => {
    const t = await fsHost(s.ws);
    expect(denialOf(await t.call('write', { file_path: 'a.txt', content: 'x' })).code).toBe('FS_NOT_READ');
    expect(await readFile(file, 'utf8')).toBe('one\ntwo\n');
  });

  it('vetoes an edit when the content changed since the read', async () => {
    const t = await fsHost(s.ws);
    await t.call('read', { file_path: 'a.txt' });
    await writeFile(file, 'one\nTWO\n');
    const error = denialOf(await t.call('edit', { file_path: 'a.txt', old_string: 'one', new_string: '1' }));
    expect(error.code).toBe('FS_CHANGED_SINCE_READ');
    expect(error.reason).toContain('Read it again');
    expect(await readFile(file, 'utf8')).toBe('one\nTWO\n');
  });

  it('lets an edit through when the file was only touched (same content, new mtime)', async () => {
    const t = await fsHost(s.ws);
    await t.call('read', { file_path: 'a.txt' });
    const later = new Date(Date.now() + 60_000);
    await utimes(file, later, later);
    expect((await t.call('edit', { file_path: 'a.txt', old_string: 'one', new_string: '1' })).status).toBe('ok');
  });

  it('allows consecutive edits: our own writes update the record', async () => {
    const t = await fsHost(s.ws);
    await t.call('read', { file_path: 'a.txt' });
    expect((await t.call('edit', { file_path: 'a.txt', old_string: 'one', new_string: '1' })).status).toBe('ok');
    expect((await t.call('edit', { file_path: 'a.txt', old_string: 'two', new_string: '2' })).status).toBe('ok');
    expect(await readFile(file, 'utf8')).toBe('1\n2\n');
  });

  it('vetoes an overwrite after a partial read, but allows an edit', async () => {
    await writeFile(file, 'a\nb\nc\n');
    const t = await fsHost(s.ws);
    await t.call('read', { file_path: 'a.txt', limit: 1 });
    expect(denialOf(await t.call('write', { file_path: 'a.txt', content: 'x' })).code).toBe('FS_PARTIAL_READ');
    expect((await t.call('edit', { file_path: 'a.txt', old_string: 'c', new_string: 'C' })).status).toBe('ok');
  });

  it('lets a new file be created without a read', async () => {
    const t = await fsHost(s.ws);
    expect(okOutput<{ created: boolean }>(await t.call('write', { file_path: 'new/deep/b.txt', content: 'b\n' })).created).toBe(true);
    expect(await readFile(path.join(s.ws, 'new/deep/b.txt'), 'utf8')).toBe('b\n');
  });

  it('lets a path seen absent be created, but not once a file has appeared there', async () => {
    const t = await fsHost(s.ws);
    await t.call('read', { file_path: 'later.txt' });
    await writeFile(path.join(s.ws, 'later.txt'), 'someone else\n');
    expect(denialOf(await t.call('write', { file_path: 'later.txt', content: 'mine' })).code).toBe('FS_APPEARED_SINCE_READ');
    await rm(path.join(s.ws, 'later.txt'));
    expect((await t.call('write', { file_path: 'later.txt', content: 'mine' })).status).toBe('ok');
  });

  it('allows an overwrite after a full read, then records the new content as read', async () => {
    const t = await fsHost(s.ws);
    await t.call('read', { file_path: 'a.txt' });
    expect((await t.call('write', { file_path: 'a.txt', content: 'new\n' })).status).toBe('ok');
    expect((await t.call('write', { file_path: 'a.txt', content: 'newer\n' })).status).toBe('ok');
    expect(await readFile(file, 'utf8')).toBe('newer\n');
  });

  it('keeps its state in a session restored from the JSONL log', async () => {
    const log = path.join(s.base, 'session.jsonl');
    const first = await fsHost(s.ws, {}, { sink: jsonlSink(log), session: 's1' });
    await first.call('read', { file_path: 'a.txt' });
    await first.host.close();
    const loaded = await loadSessionLog(log);
    const restored = await fsHost(s.ws, { history: loaded.events }, { session: 's1' });
    expect((await restored.call('edit', { file_path: 'a.txt', old_string: 'one', new_string: '1' })).status).toBe('ok');
    const fresh = await fsHost(s.ws);
    expect(denialOf(await fresh.call('edit', { file_path: 'a.txt', old_string: 'two', new_string: '2' })).code).toBe('FS_NOT_READ');
  });

  it('rebuilds the ledger from events alone', () => {
    const ledger = ReadLedger.fromEvents([
      { type: 'tool/call', data: {} },
      { type: 'fs/observed', data: { state: 'present', path: '/w/a', sha256: 'a'.repeat(64), size: 1, mtimeMs: 1, complete: true } },
      { type: 'fs/observed', data: { state: 'absent', path: '/w/b' } },
      { type: 'fs/observed', data: { state: 'present', path: '/w/bad' } },
    ]);
    expect(ledger.size).toBe(2);
    expect(ledger.check('edit', { path: '/w/a', expectedSha256: 'a'.repeat(64) })).toBeUndefined();
    expect(ledger.check('edit', { path: '/w/a', expectedSha256: 'b'.repeat(64) })).toBe('changed');
    expect(ledger.check('write', { path: '/w/b', expectedSha256: 'c'.repeat(64) })).toBe('appeared');
    expect(ledger.check('write', { path: '/w/c', expectedSha256: null })).toBeUndefined();
  });

  it('raises the gate before touching the disk, with the real path and expected hash', async () => {
    const t = await fsHost(s.ws);
    await t.call('read', { file_path: 'a.txt' });
    const seen: { path: string; expectedSha256: string; onDisk: string }[] = [];
    t.host.gates.on('fs/edit-intent', 'spy', async (data) => {
      seen.push({ ...data, onDisk: await readFile(data.path, 'utf8') });
      return { veto: 'not today' };
    });
    const error = denialOf(await t.call('edit', { file_path: 'a.txt', old_string: 'one', new_string: '1' }));
    expect(error.code).toBe('FS_GATE_VETOED');
    expect(error.reason).toContain('"spy": not today');
    expect(seen).toEqual([{ path: file, expectedSha256: expect.stringMatching(/^[0-9a-f]{64}$/), onDisk: 'one\ntwo\n' }]);
    expect(await readFile(file, 'utf8')).toBe('one\ntwo\n');
  });

  it('can be turned off', async () => {
    const t = await fsHost(s.ws, { readBeforeEdit: false });
    expect((await t.call('edit', { file_path: 'a.txt', old_string: 'one', new_string: '1' })).status).toBe('ok');
  });
});
