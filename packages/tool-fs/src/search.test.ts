import { execFileSync } from 'node:child_process';
import { mkdir, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, fsHost, okOutput, type Scratch, scratch } from './fixtures/workspace.js';
import { requiredLiteral } from './search/literal.js';
import type { GlobOutput } from './tools/glob.js';
import type { GrepOutput } from './tools/grep.js';
import type { ListOutput } from './tools/list.js';

const hasRipgrep = (() => {
  try {
    return execFileSync('rg', ['--version']).toString().startsWith('ripgrep');
  } catch {
    return false;
  }
})();

let s: Scratch;
beforeAll(async () => {
  s = await scratch();
  const files: Record<string, string> = {
    '.gitignore': 'build/\n*.log\n',
    'src/app.ts': 'export const greeting = "Hello";\nconsole.log(greeting);\n// TODO: more\n',
    'src/util.ts': 'export function add(a: number, b: number) {\n  return a + b;\n}\n// todo lower\n',
    'src/nested/.gitignore': 'secret.ts\n',
    'src/nested/secret.ts': 'const TODO = "hidden";\n',
    'src/nested/deep.ts': 'line one\nTODO in deep\nline three\nline four\nTODO again\n',
    'build/out.js': 'TODO built\n',
    'debug.log': 'TODO log\n',
    'docs/readme.md': 'Hello docs\r\nTODO crlf\r\n',
    '.git/config': 'TODO git\n',
    'bin.dat': 'TODO\0binary',
  };
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(s.ws, name)), { recursive: true });
    await writeFile(path.join(s.ws, name), content);
  }
  await symlink(s.outside, path.join(s.ws, 'escape'));
  await writeFile(path.join(s.outside, 'out.ts'), 'TODO outside\n');
  const t0 = Date.now() / 1000;
  await utimes(path.join(s.ws, 'src/app.ts'), t0 - 300, t0 - 300);
  await utimes(path.join(s.ws, 'src/util.ts'), t0 - 100, t0 - 100);
  await utimes(path.join(s.ws, 'src/nested/deep.ts'), t0 - 200, t0 - 200);
});
afterAll(() => s.cleanup());

const rel = (files: readonly string[]) => files.map((f) => path.relative(s.ws, f));

describe('glob', () => {
  it('finds files newest first, skipping .git, .gitignored files and symlinks', async () => {
    const t = await fsHost(s.ws);
    const out = okOutput<GlobOutput>(await t.call('glob', { pattern: '**/*.ts' }));
    expect(rel(out.files)).toEqual(['src/util.ts', 'src/nested/deep.ts', 'src/app.ts']);
  });

  it('includes ignored files when asked', async () => {
    const t = await fsHost(s.ws);
    const out = okOutput<GlobOutput>(await t.call('glob', { pattern: '*.{js,log}', include_ignored: true }));
    expect(rel(out.files).sort()).toEqual(['build/out.js', 'debug.log']);
  });

  it('matches a pattern without a slash against names at any depth, and caps results', async () => {
    const t = await fsHost(s.ws);
    const out = okOutput<GlobOutput>(await t.call('glob', { pattern: '*.ts', max_results: 1 }));
    expect(out).toMatchObject({ total: 3, truncated: true });
    expect(rel(out.files)).toEqual(['src/util.ts']);
  });

  it('refuses a base directory outside the root', async () => {
    const t = await fsHost(s.ws);
    expect(errorOf(await t.call('glob', { pattern: '*', path: '..' })).code).toBe('FS_PATH_TRAVERSAL');
  });
});

describe('list', () => {
  it('lists directories first, hides .git and ignored entries', async () => {
    const t = await fsHost(s.ws);
    const out = okOutput<ListOutput>(await t.call('list', {}));
    expect(out.entries).toEqual([
      { name: 'docs', kind: 'directory' },
      { name: 'src', kind: 'directory' },
      { name: '.gitignore', kind: 'file' },
      { name: 'bin.dat', kind: 'file' },
      { name: 'escape', kind: 'symlink' },
    ]);
  });

  it('applies ignore globs and include_ignored', async () => {
    const t = await fsHost(s.ws);
    const out = okOutput<ListOutput>(await t.call('list', { ignore: ['*.dat', 'escape'], include_ignored: true }));
    expect(out.entries.map((e) => e.name)).toEqual(['.git', 'build', 'docs', 'src', '.gitignore', 'debug.log']);
  });
});

const engines = [
  { name: 'builtin', search: 'builtin' as const, available: true },
  { name: 'ripgrep', search: 'ripgrep' as const, available: hasRipgrep },
];

describe.each(engines)('grep with the $name engine', ({ search, available }) => {
  it.skipIf(!available)('lists matching files, skipping .git, ignored, binary and outside files', async () => {
    const t = await fsHost(s.ws, { search });
    const out = okOutput<GrepOutput>(await t.call('grep', { pattern: 'TODO' }));
    expect(rel(out.files ?? [])).toEqual(['docs/readme.md', 'src/app.ts', 'src/nested/deep.ts']);
    expect(out.engine).toBe(search);
  });

  it.skipIf(!available)('shows matching lines with context and separators', async () => {
    const t = await fsHost(s.ws, { search });
    const out = okOutput<GrepOutput>(await t.call('grep', { pattern: 'TODO', path: 'src/nested', output_mode: 'content', context: 1 }));
    const deep = path.join(s.ws, 'src/nested/deep.ts');
    expect(out.content).toBe(
      [`${deep}-1-line one`, `${deep}:2:TODO in deep`, `${deep}-3-line three`, `${deep}-4-line four`, `${deep}:5:TODO again`].join('\n'),
    );
  });

  it.skipIf(!available)('counts per file, ignores case when asked, and filters by glob', async () => {
    const t = await fsHost(s.ws, { search });
    const out = okOutput<GrepOutput>(await t.call('grep', { pattern: 'todo', case_insensitive: true, output_mode: 'count', glob: '*.ts' }));
    expect(out.counts?.map((c) => [path.relative(s.ws, c.path), c.count])).toEqual([
      ['src/app.ts', 1],
      ['src/nested/deep.ts', 2],
      ['src/util.ts', 1],
    ]);
  });

  it.skipIf(!available)('caps matches and says the result was truncated', async () => {
    const t = await fsHost(s.ws, { search });
    const out = okOutput<GrepOutput>(await t.call('grep', { pattern: 'TODO', output_mode: 'content', max_results: 2 }));
    expect(out).toMatchObject({ matches: 2, truncated: true });
  });

  it.skipIf(!available)('matches JavaScript regex syntax, CRLF lines included', async () => {
    const t = await fsHost(s.ws, { search });
    const out = okOutput<GrepOutput>(await t.call('grep', { pattern: '^TODO crlf$', output_mode: 'content' }));
    expect(out.content).toBe(`${path.join(s.ws, 'docs/readme.md')}:2:TODO crlf`);
    const lookahead = okOutput<GrepOutput>(await t.call('grep', { pattern: 'Hello(?= docs)' }));
    expect(rel(lookahead.files ?? [])).toEqual(['docs/readme.md']);
  });

  it.skipIf(!available)('gives the same results as the other engine', async () => {
    const builtin = await fsHost(s.ws, { search: 'builtin' });
    const mine = await fsHost(s.ws, { search });
    const queries = [
      { pattern: 'TODO', output_mode: 'content', include_ignored: true },
      { pattern: 'greet\\w+', output_mode: 'content' },
      { pattern: 'Hello', case_insensitive: true },
      { pattern: 'return a \\+ b', output_mode: 'count' },
      { pattern: 'line (one|four)', output_mode: 'content', before: 1 },
    ];
    for (const q of queries) {
      const a = okOutput<GrepOutput>(await builtin.call('grep', q));
      const b = okOutput<GrepOutput>(await mine.call('grep', q));
      expect({ ...b, engine: 'x' }).toEqual({ ...a, engine: 'x' });
    }
  });
});

describe('grep input', () => {
  it('refuses an invalid regex with FS_INVALID_REGEX', async () => {
    const t = await fsHost(s.ws);
    const error = errorOf(await t.call('grep', { pattern: 'a(b' }));
    expect(error.code).toBe('FS_INVALID_REGEX');
  });

  it('uses ripgrep by default when it is installed', async () => {
    const t = await fsHost(s.ws);
    expect(okOutput<GrepOutput>(await t.call('grep', { pattern: 'TODO' })).engine).toBe(hasRipgrep ? 'ripgrep' : 'builtin');
  });

  it('fails registration when ripgrep is required but missing', async () => {
    await expect(fsHost(s.ws, { search: 'ripgrep', ripgrepPath: '/nonexistent/rg' })).rejects.toThrow(/ripgrep/);
  });
});

describe('requiredLiteral', () => {
  it.each([
    ['TODO', 'TODO'],
    ['foo\\.bar', 'foo.bar'],
    ['ab*cdef', 'cdef'],
    ['abc+d', 'abc'],
    ['x{2}yz', 'yz'],
    ['(foo)barbaz', 'barbaz'],
    ['[abc]defg\\d', 'defg'],
    ['foo|bar', undefined],
    ['\\x41BC', 'BC'],
    ['a', undefined],
    ['\\u{41}zz', 'zz'],
  ])('finds the literal every match of %s must hold', (pattern, literal) => {
    expect(requiredLiteral(pattern)).toBe(literal);
  });
});
