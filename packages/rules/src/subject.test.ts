import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { subjectOf } from './subject.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-rules-subject-')));
mkdirSync(join(root, 'proj', 'src'), { recursive: true });
mkdirSync(join(root, 'outside'));
writeFileSync(join(root, 'outside', 'secret'), 'x');
symlinkSync(join(root, 'outside'), join(root, 'proj', 'link'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const proj = join(root, 'proj');
const anchors = { cwd: proj, projectDir: proj, homeDir: join(root, 'home') };

describe('subjectOf, file paths', () => {
  it('judges a path as given and through its symlinks', () => {
    expect(subjectOf('Read', { file_path: 'link/secret' }, anchors).paths).toEqual([
      join(proj, 'link', 'secret'),
      join(root, 'outside', 'secret'),
    ]);
  });

  it('takes a path the tool already resolved as it is (no second realpath)', () => {
    // A path core resolved is real; were it not, only the spelling given would be judged.
    expect(subjectOf('Read', { file_path: 'link/secret' }, anchors, 'read', { pathsResolved: true }).paths).toEqual([
      join(proj, 'link', 'secret'),
    ]);
    expect(subjectOf('Read', { file_path: '~/notes' }, anchors, 'read', { pathsResolved: true }).paths).toEqual([
      join(root, 'home', 'notes'),
    ]);
  });

  it('still resolves the working directory a search without a path falls back to', () => {
    const linked = { ...anchors, cwd: join(proj, 'link') };
    expect(subjectOf('Grep', { pattern: 'x' }, linked, 'grep', { pathsResolved: true }).paths).toEqual([
      join(proj, 'link'),
      join(root, 'outside'),
    ]);
  });
});
