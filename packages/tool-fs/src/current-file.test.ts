import { appendFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Scratch, scratch } from './fixtures/workspace.js';
import { readCurrent, sha256Of } from './internal/current-file.js';
import { withPinned } from './internal/open-file.js';
import { Workspace } from './workspace.js';

let s: Scratch;
beforeEach(async () => {
  s = await scratch();
});
afterEach(() => s.cleanup());

const signal = new AbortController().signal;

describe('readCurrent', () => {
  // A small file is read in one direct call sized by the fstat; a file that grew after it must still be read whole.
  it.each([
    ['a small file', 10, 100_000],
    ['a file just under the direct-read limit', 64 * 1024 - 1, 10],
    ['an empty file', 0, 70_000],
  ])('reads %s whole when it grew after it was opened', async (_name, before, added) => {
    const file = path.join(s.ws, 'growing.txt');
    await writeFile(file, 'a'.repeat(before));
    const workspace = Workspace.open(s.ws, [s.ws], []);
    const target = workspace.resolveJudged(file, 'write');
    const current = await withPinned(workspace, target, async (pinned) => {
      await appendFile(file, 'b'.repeat(added));
      return readCurrent(pinned, target.real, { keepBytes: true, maxBytes: 1 << 20, signal });
    });
    const expected = Buffer.from('a'.repeat(before) + 'b'.repeat(added));
    expect(current.exists && current.size).toBe(expected.length);
    expect(current.exists && current.bytes?.equals(expected)).toBe(true);
    expect(current.exists && current.sha256).toBe(sha256Of(expected));
  });
});
