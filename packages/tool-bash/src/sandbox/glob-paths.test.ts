import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CompiledGlob, compileGlob, expandGlobs } from './glob-paths.js';

const limits = { maxEntries: 10_000, maxMatches: 100 };
const compiled = (...globs: string[]): CompiledGlob[] => globs.map((g) => compileGlob(g) as CompiledGlob);

function tree(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-glob-')));
  for (const file of ['a/.env', 'a/b/.env', 'a/b/key.pem', 'c/key.pem', 'c/key.txt', 'd(1)/x']) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), '');
  }
  return dir;
}

describe('expanding the host policy globs', () => {
  it('finds a name at any depth, dot files included', () => {
    const dir = tree();
    const found = expandGlobs(compiled(join(dir, '**', '.env')), limits);
    expect(found.ok && [...found.paths].sort()).toEqual([join(dir, 'a', '.env'), join(dir, 'a', 'b', '.env')]);
  });

  it('reads *, ?, [..] and {a,b} within one name, and parentheses literally', () => {
    const dir = tree();
    const found = expandGlobs(compiled(join(dir, 'c', 'key.{pem,txt}'), join(dir, '?', 'b', '*.pe[m]'), join(dir, 'd(1)', 'x')), limits);
    expect(found.ok && [...found.paths].sort()).toEqual(
      [join(dir, 'a', 'b', 'key.pem'), join(dir, 'c', 'key.pem'), join(dir, 'c', 'key.txt'), join(dir, 'd(1)', 'x')].sort(),
    );
  });

  it('takes a directory for everything under it: a trailing /** names the directory', () => {
    const dir = tree();
    expect(expandGlobs(compiled(join(dir, 'a', '**')), limits)).toEqual({ ok: true, paths: [join(dir, 'a')] });
  });

  it('gives up, saying which pattern, past its entry budget', () => {
    const dir = tree();
    const found = expandGlobs(compiled(join(dir, '**', 'nothing')), { maxEntries: 3, maxMatches: 100 });
    expect(found.ok).toBe(false);
    expect(!found.ok && found.reason).toContain(join(dir, '**', 'nothing'));
  });

  it('refuses to compile a relative path', () => {
    expect(compileGlob('secrets/**')).toBeUndefined();
  });
});
