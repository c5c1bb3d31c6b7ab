import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fsHost, type Scratch, scratch } from './fixtures/workspace.js';

let s: Scratch;
beforeEach(async () => {
  s = await scratch();
});
afterEach(() => s.cleanup());

/** The summary of the last card the test UI got (a call's completed card). */
async function summaries(calls: readonly [string, Record<string, unknown>][]): Promise<(string | undefined)[]> {
  const t = await fsHost(s.ws);
  const out: (string | undefined)[] = [];
  for (const [tool, args] of calls) {
    await t.call(tool, args);
    out.push(t.ui.cards.at(-1)?.card.summary);
  }
  return out;
}

describe('card summaries count as a person reads', () => {
  it('says 1 line, 1 file, 1 entry, 1 byte, and the plural for two', async () => {
    await mkdir(path.join(s.ws, 'one'));
    await mkdir(path.join(s.ws, 'two'));
    await writeFile(path.join(s.ws, 'one', 'a.txt'), 'x');
    await writeFile(path.join(s.ws, 'two', 'a.txt'), 'xy\nxy\n');
    await writeFile(path.join(s.ws, 'two', 'b.txt'), 'xy\n');
    expect(
      await summaries([
        ['read', { file_path: 'one/a.txt' }],
        ['read', { file_path: 'two/a.txt' }],
        ['glob', { pattern: '*.txt', path: 'one' }],
        ['glob', { pattern: '*.txt', path: 'two' }],
        ['grep', { pattern: 'x', path: 'one' }],
        ['grep', { pattern: 'xy', path: 'two' }],
        ['list', { path: 'one' }],
        ['list', { path: 'two' }],
        ['write', { file_path: 'new.txt', content: 'x' }],
      ]),
    ).toEqual([
      'line 1 of 1',
      'lines 1-2 of 2',
      '1 file',
      '2 files',
      '1 matching line in 1 file',
      '3 matching lines in 2 files',
      '1 entry',
      '2 entries',
      'created (1 byte)',
    ]);
  });

  it('counts one edit and one replacement in the singular', async () => {
    const t = await fsHost(s.ws);
    await writeFile(path.join(s.ws, 'e.txt'), 'alpha beta\n');
    await t.call('read', { file_path: 'e.txt' });
    await t.call('multi_edit', { file_path: 'e.txt', edits: [{ old_string: 'alpha', new_string: 'gamma' }] });
    const cards = t.ui.cards.slice(-2).map((c) => c.card.summary);
    expect(cards).toEqual(['1 edit', '1 replacement']);
  });

  it('says 1 line for a one-line write before it runs', async () => {
    const t = await fsHost(s.ws);
    await t.call('write', { file_path: 'w.txt', content: 'x' });
    expect(t.ui.cards[0]?.card.summary).toBe('1 line, 1 byte');
  });
});
