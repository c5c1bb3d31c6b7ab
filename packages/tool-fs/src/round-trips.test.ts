import { createHook } from 'node:async_hooks';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { TestHost } from '@deepseek-ai/dsh-core/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fsHost, okOutput, type Scratch, scratch } from './fixtures/workspace.js';

// Each async fs call is a thread-pool round trip (about 100 µs under load); the
// tools make as few as the work needs. Counted, not timed, so the verdict does
// not depend on the machine.
let fsCalls = 0;
const hook = createHook({
  init(_id, type) {
    if (type === 'FSREQCALLBACK' || type === 'FSREQPROMISE') fsCalls += 1;
  },
});
beforeAll(() => {
  hook.enable();
});
afterAll(() => {
  hook.disable();
});

let s: Scratch;
beforeEach(async () => {
  s = await scratch();
  await writeFile(path.join(s.ws, 'four-k.txt'), `alpha\n${`${'a'.repeat(63)}\n`.repeat(63)}`);
});
afterEach(() => s.cleanup());

async function counted(t: TestHost, name: string, args: Record<string, unknown>): Promise<number> {
  const before = fsCalls;
  okOutput(await t.call(name, args));
  return fsCalls - before;
}

describe('thread-pool round trips of a 4 KB file', () => {
  it('read: one (the data), every check being a direct system call', async () => {
    const t = await fsHost(s.ws);
    expect(await counted(t, 'read', { file_path: 'four-k.txt' })).toBe(1);
  });

  it('write and edit: only the fsync, the 4 KB read and write being direct system calls; none without fsync', async () => {
    const t = await fsHost(s.ws);
    await t.call('read', { file_path: 'four-k.txt' });
    expect(await counted(t, 'edit', { file_path: 'four-k.txt', old_string: 'alpha', new_string: 'omega' })).toBe(1);
    expect(await counted(t, 'write', { file_path: 'four-k.txt', content: 'short\n' })).toBe(1);
    expect(await counted(t, 'write', { file_path: 'new/dir/created.txt', content: 'new\n' })).toBe(1);
    const fast = await fsHost(s.ws, { fsync: false });
    await fast.call('read', { file_path: 'four-k.txt' });
    expect(await counted(fast, 'edit', { file_path: 'four-k.txt', old_string: 'short', new_string: 'long' })).toBe(0);
  });

  it('data over 64 KB goes through the thread pool, so a big file never holds the event loop', async () => {
    const t = await fsHost(s.ws, { fsync: false });
    const big = `alpha\n${'b'.repeat(200 * 1024)}\n`;
    await t.call('read', { file_path: 'four-k.txt' });
    // The 4 KB file is read directly; the 200 KB written through the pool (one call, a local disk taking it whole).
    expect(await counted(t, 'write', { file_path: 'four-k.txt', content: big })).toBe(1);
    // Read in 64 KB chunks (four, the last one short), then written.
    expect(await counted(t, 'edit', { file_path: 'four-k.txt', old_string: 'alpha', new_string: 'omega' })).toBe(5);
  });
});
