// The glob walk of the host policy keeps what it listed between calls (DirectoryListings): these
// tests change real trees between walks in every way a new secret can appear, and the next walk
// must see it. The trees are made first and left to age past `recentMs`: only then are listings kept.
import { mkdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SandboxPolicyPart } from '@deepseek-ai/dsh-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { bashHosts, bwrapStatus, okOutput, trackProcesses, workspace } from './fixtures/support.js';
import { DirectoryListings, recentMs } from './sandbox/directory-listings.js';
import { type CompiledGlob, compileGlob, expandGlobs } from './sandbox/glob-paths.js';

const base = workspace('dsh-glob-cache-');
const limits = { maxEntries: 10_000, maxMatches: 100 };
const trees: Record<string, string> = {};
const names = ['new-file', 'new-dir', 'renamed', 'swapped', 'replaced', 'relinked', 'clock', 'bash'];

/** `a/.env`, `a/b/c/keep`, `d/x`, `e/.env` and a link `l` to `d`: nothing changes in it until the test does. */
function tree(name: string): string {
  const dir = join(base, name);
  for (const file of ['a/.env', 'a/b/c/keep', 'd/x', 'e/.env']) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), 'SECRET\n');
  }
  symlinkSync(join(dir, 'd'), join(dir, 'l'));
  return dir;
}

beforeAll(async () => {
  for (const name of names) trees[name] = tree(name);
  // Wait until every directory made above is older than `recentMs` (ctime is the kernel's clock, not ours).
  const newest = (): number => Math.max(...names.map((name) => statSync(join(trees[name] as string, 'a', 'b', 'c')).ctimeMs));
  while (Date.now() - newest() <= recentMs + 100) await sleep(100);
});

const glob = (text: string): CompiledGlob[] => [compileGlob(text) as CompiledGlob];

/** A walk over `dir` with `listings`, its paths relative to `dir`, sorted. */
function found(listings: DirectoryListings, pattern: string, dir: string): string[] {
  const expanded = expandGlobs(glob(join(dir, pattern)), limits, listings);
  if (!expanded.ok) throw new Error(expanded.reason);
  return expanded.paths.map((path) => path.slice(dir.length + 1)).sort();
}

/** Listings with a first walk done and kept (else the test proves nothing about the cache). */
function warmed(dir: string, pattern = '**/.env', expected = ['a/.env', 'e/.env']): DirectoryListings {
  const listings = new DirectoryListings();
  expect(found(listings, pattern, dir)).toEqual(expected);
  expect(listings.size).toBeGreaterThan(2);
  return listings;
}

describe('the glob walk kept between calls', () => {
  it('sees a new file in a directory whose listing was kept, at any depth', () => {
    const dir = trees['new-file'] as string;
    const listings = warmed(dir);
    writeFileSync(join(dir, 'a', 'b', 'c', '.env'), '');
    expect(found(listings, '**/.env', dir)).toEqual(['a/.env', 'a/b/c/.env', 'e/.env']);
    writeFileSync(join(dir, '.env'), '');
    expect(found(listings, '**/.env', dir)).toEqual(['.env', 'a/.env', 'a/b/c/.env', 'e/.env']);
    // A last name with a glob is matched against the listing itself (a literal one is looked up).
    expect(found(listings, '**/*.pem', dir)).toEqual([]);
    writeFileSync(join(dir, 'a', 'b', 'c', 'key.pem'), '');
    expect(found(listings, '**/*.pem', dir)).toEqual(['a/b/c/key.pem']);
  });

  it('sees a new directory holding a match', () => {
    const dir = trees['new-dir'] as string;
    const listings = warmed(dir);
    mkdirSync(join(dir, 'a', 'b', 'c', 'n', 'm'), { recursive: true });
    writeFileSync(join(dir, 'a', 'b', 'c', 'n', 'm', '.env'), '');
    expect(found(listings, '**/.env', dir)).toEqual(['a/.env', 'a/b/c/n/m/.env', 'e/.env']);
  });

  it('sees a renamed folder under its new name, and not under its old one', () => {
    const dir = trees.renamed as string;
    const listings = warmed(dir);
    renameSync(join(dir, 'a'), join(dir, 'moved'));
    expect(found(listings, '**/.env', dir)).toEqual(['e/.env', 'moved/.env']);
  });

  it('sees two folders swapped by renames, each by what it now holds', () => {
    const dir = trees.swapped as string;
    const listings = warmed(dir, 'a/**/.env', ['a/.env']);
    renameSync(join(dir, 'a'), join(dir, 'tmp'));
    renameSync(join(dir, 'd'), join(dir, 'a'));
    renameSync(join(dir, 'tmp'), join(dir, 'd'));
    // Only the pattern's own folder was walked, and its path now names the other folder.
    writeFileSync(join(dir, 'a', '.env'), '');
    expect(found(listings, 'a/**/.env', dir)).toEqual(['a/.env']);
    rmSync(join(dir, 'a', '.env'));
    expect(found(listings, 'a/**/.env', dir)).toEqual([]);
    expect(found(listings, 'd/**/.env', dir)).toEqual(['d/.env']);
  });

  it('sees a folder removed and made again with the same name', () => {
    const dir = trees.replaced as string;
    const listings = warmed(dir);
    rmSync(join(dir, 'a', 'b'), { recursive: true });
    mkdirSync(join(dir, 'a', 'b'));
    writeFileSync(join(dir, 'a', 'b', '.env'), '');
    expect(found(listings, '**/.env', dir)).toEqual(['a/.env', 'a/b/.env', 'e/.env']);
  });

  it('sees through a link that now points elsewhere', () => {
    const dir = trees.relinked as string;
    const listings = new DirectoryListings();
    expect(found(listings, 'l/**/.env', dir)).toEqual([]);
    expect(listings.size).toBeGreaterThan(0);
    rmSync(join(dir, 'l'));
    symlinkSync(join(dir, 'e'), join(dir, 'l'));
    expect(found(listings, 'l/**/.env', dir)).toEqual(['l/.env']);
  });

  it('keeps no listing of a directory changed within recentMs of the walk (a change in the same clock tick would not show)', () => {
    const dir = trees.clock as string;
    const changed = statSync(join(dir, 'a')).ctimeMs;
    // A walk at the moment `a` changed, and one recentMs later: neither may keep `a`.
    for (const at of [changed, changed + recentMs]) {
      const listings = new DirectoryListings(() => at);
      found(listings, 'a/*', dir);
      expect(listings.size).toBe(0);
    }
    const later = new DirectoryListings(() => changed + recentMs + 1);
    found(later, 'a/*', dir);
    expect(later.size).toBe(1);
  });
});

const status = await bwrapStatus();
const { env } = trackProcesses();

describe.skipIf(!status.ok)('the host policy walk between bash calls', () => {
  it('hides a .env that a command made where the last walk was kept, from the next command on', async () => {
    const ws = trees.bash as string;
    const t = await bashHosts({ cwd: ws, sandbox: { provider: 'bwrap' } }, env)();
    const part: SandboxPolicyPart = { hidden: [join(ws, '**', '.env')] };
    t.host.sandboxPolicy.contribute('test-policy', () => part);
    okOutput(await t.call('bash', { command: 'echo TOP-SECRET > a/b/c/.env' }));
    okOutput(await t.call('bash', { command: 'mkdir -p a/b/c/new && echo TOP-SECRET > a/b/c/new/.env' }));
    renameSync(join(ws, 'a'), join(ws, 'moved'));
    const out = okOutput(await t.call('bash', { command: 'cat moved/b/c/.env moved/b/c/new/.env moved/.env; echo end' }));
    expect(out.stdout).not.toContain('SECRET');
    expect(out.stdout).toContain('end');
  });
});
