import { open, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf, fsHost, observed, okOutput, type Scratch, scratch } from './fixtures/workspace.js';
import type { ReadOutput } from './tools/read.js';

let s: Scratch;
beforeEach(async () => {
  s = await scratch();
});
afterEach(() => s.cleanup());

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n');

describe('read', () => {
  it('returns numbered lines and records a complete fs/observed event', async () => {
    await writeFile(path.join(s.ws, 'a.txt'), 'one\ntwo\n');
    const t = await fsHost(s.ws);
    const out = okOutput<ReadOutput>(await t.call('read', { file_path: 'a.txt' }));
    expect(out).toMatchObject({ content: '     1\tone\n     2\ttwo', startLine: 1, endLine: 2, totalLines: 2, complete: true });
    const [event] = observed(t.host.events.list());
    expect(event?.data).toMatchObject({ state: 'present', path: path.join(s.ws, 'a.txt'), size: 8, complete: true });
    expect(event?.data).toHaveProperty('sha256', expect.stringMatching(/^[0-9a-f]{64}$/));
  });

  it('honours offset and limit, says how to read on, and marks the read partial', async () => {
    await writeFile(path.join(s.ws, 'long.txt'), `${numbered(50)}\n`);
    const t = await fsHost(s.ws);
    const out = okOutput<ReadOutput>(await t.call('read', { file_path: 'long.txt', offset: 10, limit: 3 }));
    expect(out.content).toBe('    10\tline 10\n    11\tline 11\n    12\tline 12');
    expect(out.complete).toBe(false);
    expect(out.notice).toContain('Use offset 13');
    expect(observed(t.host.events.list())[0]?.data).toMatchObject({ complete: false });
  });

  it('returns 2,000 lines by default', async () => {
    await writeFile(path.join(s.ws, 'big.txt'), `${numbered(2500)}\n`);
    const t = await fsHost(s.ws);
    const out = okOutput<ReadOutput>(await t.call('read', { file_path: 'big.txt' }));
    expect(out.endLine).toBe(2000);
    expect(out.totalLines).toBe(2500);
    expect(out.complete).toBe(false);
  });

  it('cuts long lines with a marker and keeps the read partial', async () => {
    await writeFile(path.join(s.ws, 'wide.txt'), `${'x'.repeat(50)}\nshort\n`);
    const t = await fsHost(s.ws, { maxLineLength: 10 });
    const out = okOutput<ReadOutput>(await t.call('read', { file_path: 'wide.txt' }));
    expect(out.content).toBe('     1\txxxxxxxxxx… [line cut at 10 characters]\n     2\tshort');
    expect(out.complete).toBe(false);
  });

  it('strips CRLF line ends from what it shows', async () => {
    await writeFile(path.join(s.ws, 'crlf.txt'), 'a\r\nb\r\n');
    const t = await fsHost(s.ws);
    expect(okOutput<ReadOutput>(await t.call('read', { file_path: 'crlf.txt' })).content).toBe('     1\ta\n     2\tb');
  });

  it('refuses a binary file with FS_BINARY_FILE', async () => {
    await writeFile(path.join(s.ws, 'bin'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1, 2]));
    const t = await fsHost(s.ws);
    expect(errorOf(await t.call('read', { file_path: 'bin' })).code).toBe('FS_BINARY_FILE');
  });

  it('says a directory is a directory', async () => {
    const t = await fsHost(s.ws);
    const error = errorOf(await t.call('read', { file_path: '.' }));
    expect(error.code).toBe('FS_IS_DIRECTORY');
    expect(error.message).toContain('is a directory');
  });

  it('reports a missing file and records that it was seen absent', async () => {
    const t = await fsHost(s.ws);
    expect(errorOf(await t.call('read', { file_path: 'nope.txt' })).code).toBe('FS_NOT_FOUND');
    expect(observed(t.host.events.list())[0]?.data).toEqual({ state: 'absent', path: path.join(s.ws, 'nope.txt') });
  });

  it('shows invalid UTF-8 as replacement characters instead of failing', async () => {
    await writeFile(path.join(s.ws, 'bad.txt'), Buffer.from([0x61, 0xff, 0xfe, 0x62, 0x0a]));
    const t = await fsHost(s.ws);
    expect(okOutput<ReadOutput>(await t.call('read', { file_path: 'bad.txt' })).content).toBe('     1\ta\uFFFD\uFFFDb');
  });

  it('says an empty file is empty', async () => {
    await writeFile(path.join(s.ws, 'empty.txt'), '');
    const t = await fsHost(s.ws);
    const out = okOutput<ReadOutput>(await t.call('read', { file_path: 'empty.txt' }));
    expect(out).toMatchObject({ content: '', complete: true, notice: 'The file is empty.' });
  });

  // 40 MB: more than twice maxEditBytes (so the read cannot hash it whole and must
  // stream) and 20,000 times maxLineLength. The generous timeout keeps the verdict
  // about the bound, not about how fast a loaded machine writes and reads 40 MB.
  it('reads a single 40 MB line with bounded output', { timeout: 120_000 }, async () => {
    const file = path.join(s.ws, 'one-line.txt');
    const handle = await open(file, 'w');
    const block = Buffer.alloc(1 << 20, 'a');
    for (let i = 0; i < 40; i += 1) await handle.write(block);
    await handle.close();
    const t = await fsHost(s.ws);
    const out = okOutput<ReadOutput>(await t.call('read', { file_path: 'one-line.txt' }));
    expect(out.content.length).toBeLessThan(2100);
    expect(out.content).toContain('[line cut at 2000 characters]');
    expect(out.totalLines).toBe(1);
    expect(observed(t.host.events.list())[0]?.data).toMatchObject({ size: 40 << 20, complete: false });
  });

  it('stops a long read at the character cap and says so', async () => {
    await writeFile(path.join(s.ws, 'many.txt'), `${numbered(100)}\n`);
    const t = await fsHost(s.ws, { maxReadChars: 100 });
    const out = okOutput<ReadOutput>(await t.call('read', { file_path: 'many.txt' }));
    expect(out.endLine).toBeLessThan(100);
    expect(out.notice).toContain('Output stopped at 100 characters');
    expect(out.complete).toBe(false);
  });

  it('shows pending and completed cards', async () => {
    await writeFile(path.join(s.ws, 'a.txt'), 'one\n');
    const t = await fsHost(s.ws);
    await t.call('read', { file_path: 'a.txt' });
    expect(t.ui.cards.map((c) => c.card.title)).toEqual(['Read a.txt', `Read ${path.join(s.ws, 'a.txt')}`]);
    expect(t.ui.cards[1]?.card.summary).toBe('line 1 of 1');
  });
});
