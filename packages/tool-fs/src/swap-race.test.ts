import { type ChildProcess, spawn } from 'node:child_process';
import { lstat, mkdir, readdir, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Outcome } from '@deepseek-ai/dsh-core';
import type { TestHost } from '@deepseek-ai/dsh-core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsErrorCode } from './errors.js';
import { fsHost, okOutput, type Scratch, scratch } from './fixtures/workspace.js';
import type { ReadOutput } from './tools/read.js';

// A real second process swaps a directory of the path for a symlink to `outside`
// (and back) while the host runs tool calls through that path. The verdict counts
// files outside the roots after the run, so it does not depend on machine speed:
// a slow machine only gives the swapper fewer chances. Rounds are bounded so the
// whole file stays well under its timeout on a loaded 2-core machine.
const rounds = 1000;
const swapper = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'swapper.mjs');
const allowedCodes = new Set<string>([...Object.values(FsErrorCode), 'ABORTED']);

let s: Scratch;
let child: ChildProcess | undefined;
beforeEach(async () => {
  s = await scratch();
  undocumented = [];
});
afterEach(async () => {
  await stopSwapper();
  await s.cleanup();
});

async function startSwapper(name: string): Promise<void> {
  const started = spawn(process.execPath, [swapper, s.ws, name, '../outside'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  child = started;
  await new Promise<void>((resolve, reject) => {
    started.once('message', () => resolve());
    started.once('exit', (code) => reject(new Error(`the swapper exited early (${code})`)));
  });
}

/** Kills the swapper, waits for it to be gone, and puts `name` back as a real directory. */
async function stopSwapper(name?: string): Promise<void> {
  const running = child;
  child = undefined;
  if (running !== undefined && running.exitCode === null && running.signalCode === null) {
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  }
  if (name === undefined) return;
  const real = path.join(s.ws, name);
  const info = await lstat(real).catch(() => undefined);
  if (info?.isSymbolicLink()) await unlink(real);
  if (!info?.isDirectory()) await rename(`${real}.away`, real).catch(() => mkdir(real));
}

/** Every file under `dir` (recursively), relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => !e.isDirectory()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

/** Codes of errors and denials that are not among the documented ones, checked after each run. */
let undocumented: string[] = [];
function expectDocumented(outcome: Outcome): void {
  if (outcome.status === 'ok') return;
  const code = outcome.status === 'error' ? outcome.error.code : outcome.code;
  if (!allowedCodes.has(code)) undocumented.push(`${code}: ${outcome.status === 'error' ? outcome.error.message : outcome.reason}`);
}

async function readThenChange(t: TestHost, tool: 'write' | 'edit' | 'multi_edit'): Promise<void> {
  const read = await t.call('read', { file_path: 'd/f.txt' });
  expectDocumented(read);
  const now = read.status === 'ok' && (read.output as unknown as ReadOutput).content.includes('two') ? 'two' : 'one';
  const next = now === 'one' ? 'two' : 'one';
  const args =
    tool === 'write'
      ? { file_path: 'd/f.txt', content: `${next}\n` }
      : tool === 'edit'
        ? { file_path: 'd/f.txt', old_string: now, new_string: next }
        : {
            file_path: 'd/f.txt',
            edits: [
              { old_string: now, new_string: 'mid' },
              { old_string: 'mid', new_string: next },
            ],
          };
  expectDocumented(await t.call(tool, args));
}

describe('a path component swapped for a symlink during a call', () => {
  for (const tool of ['write', 'edit', 'multi_edit'] as const) {
    it(`never lets ${tool} change a file outside the roots`, { timeout: 120_000 }, async () => {
      await mkdir(path.join(s.ws, 'd'));
      await writeFile(path.join(s.ws, 'd', 'f.txt'), 'one\n');
      await writeFile(path.join(s.outside, 'f.txt'), 'one\n');
      const t = await fsHost(s.ws);
      await startSwapper('d');
      for (let i = 0; i < rounds; i += 1) await readThenChange(t, tool);
      await stopSwapper('d');
      expect(await filesUnder(s.outside)).toEqual(['f.txt']);
      expect(await readFile(path.join(s.outside, 'f.txt'), 'utf8')).toBe('one\n');
      expect(undocumented.slice(0, 5)).toEqual([]);
      // The tools still work once the swapping stops.
      await rm(path.join(s.ws, 'd'), { recursive: true, force: true });
      await mkdir(path.join(s.ws, 'd'));
      await writeFile(path.join(s.ws, 'd', 'f.txt'), 'one\n');
      await readThenChange(t, tool);
      expect(await readFile(path.join(s.ws, 'd', 'f.txt'), 'utf8')).toBe('two\n');
    });
  }

  it('never lets a write create directories or files outside the roots', { timeout: 120_000 }, async () => {
    await mkdir(path.join(s.ws, 'a'));
    const t = await fsHost(s.ws);
    await startSwapper('a');
    for (let i = 0; i < rounds; i += 1) {
      expectDocumented(await t.call('write', { file_path: `a/b/new-${i}.txt`, content: `secret ${i}\n` }));
    }
    await stopSwapper('a');
    expect(await filesUnder(s.outside)).toEqual([]);
    expect(undocumented.slice(0, 5)).toEqual([]);
    const written = await t.call('write', { file_path: 'a/b/last.txt', content: 'last\n' });
    expect(okOutput<{ path: string }>(written).path).toBe(path.join(s.ws, 'a', 'b', 'last.txt'));
  });

  it('never lets list, glob or grep show what is outside the roots', { timeout: 120_000 }, async () => {
    await mkdir(path.join(s.ws, 'd', 'sub'), { recursive: true });
    await writeFile(path.join(s.ws, 'd', 'sub', 'mine.txt'), 'needle inside\n');
    await mkdir(path.join(s.outside, 'sub'));
    await writeFile(path.join(s.outside, 'sub', 'theirs.txt'), 'needle outside\n');
    const t = await fsHost(s.ws, { search: 'builtin' });
    await startSwapper('d');
    const leaks: string[] = [];
    for (let i = 0; i < rounds / 4; i += 1) {
      for (const [tool, args] of [
        ['grep', { pattern: 'needle', output_mode: 'content' }],
        ['grep', { pattern: 'needle', path: 'd/sub', output_mode: 'content' }],
        ['list', { path: 'd/sub' }],
        ['glob', { pattern: '**/*.txt', path: 'd' }],
      ] as const) {
        const outcome = await t.call(tool, args);
        expectDocumented(outcome);
        if (/theirs|needle outside/.test(JSON.stringify(outcome))) leaks.push(JSON.stringify(outcome));
      }
    }
    await stopSwapper('d');
    expect(leaks.slice(0, 3)).toEqual([]);
    expect(undocumented.slice(0, 5)).toEqual([]);
  });
});
