import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkRules, matchRule } from './match.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-perm-match-')));
const proj = join(root, 'proj');
const home = join(root, 'home');
const outside = join(root, 'outside');
for (const dir of [join(proj, 'src'), join(proj, 'docs'), join(proj, 'sub'), join(proj, 'secrets'), join(home, '.ssh'), outside]) {
  mkdirSync(dir, { recursive: true });
}
for (const file of ['src/a.ts', 'docs/x.md', '.env', 'sub/.env', 'secrets/k']) writeFileSync(join(proj, file), 'x');
writeFileSync(join(outside, 'secret.txt'), 'secret');
writeFileSync(join(home, '.ssh', 'id_rsa'), 'key');
symlinkSync(join(outside, 'secret.txt'), join(proj, 'src', 'link-out'));
symlinkSync(outside, join(proj, 'linkdir'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const where = { cwd: proj, projectDir: proj, homeDir: home };
const bash = (command: string) => ['Bash', { command }] as const;
const read = (file_path: string) => ['Read', { file_path }] as const;
const edit = (file_path: string) => ['Edit', { file_path, old_string: 'a', new_string: 'b' }] as const;
const write = (file_path: string) => ['Write', { file_path, content: '' }] as const;
const fetchUrl = (url: string) => ['WebFetch', { url, prompt: '' }] as const;
const tool = (name: string, input: Record<string, unknown> = {}) => [name, input] as const;

type Case = readonly [rule: string, call: readonly [string, Record<string, unknown>], applies: boolean];

const table: readonly Case[] = [
  // Bash: exact, prefix, wildcard and word-boundary forms.
  ['Bash(git status)', bash('git status'), true],
  ['Bash(git status)', bash('git status --short'), false],
  ['Bash(git status:*)', bash('git status --short'), true],
  ['Bash(npm run test:*)', bash('npm run test'), true],
  ['Bash(npm run test:*)', bash('npm run testing'), false],
  ['Bash(ls *)', bash('ls'), true],
  ['Bash(ls *)', bash('ls -la'), true],
  ['Bash(ls *)', bash('lsof'), false],
  ['Bash(ls*)', bash('lsof'), true],
  ['Bash(git * main)', bash('git checkout main'), true],
  ['Bash(git * main)', bash('git checkout dev'), false],
  ['Bash(* install)', bash('pnpm install'), true],
  ['Bash(*push*)', bash('git push origin'), true],
  ['Bash(*push*)', bash('git pull origin'), false],
  ['Bash(git*main)', bash('git checkout main'), true],
  ['Bash(git*main)', bash('git checkout main2'), false],
  ['Bash(git push *)', bash('git push --force origin main'), true],
  ['Bash(git push *)', bash('git pushx'), false],
  ['Bash(npm test)', bash('npm   test  '), true],
  ['Bash(echo a\\*b)', bash('echo a*b'), true],
  ['Bash(echo a\\*b)', bash('echo aXb'), false],
  ['Bash', bash('anything at all; rm -rf ~'), true],
  ['Bash(*)', bash('anything'), true],
  ['Bash(git status)', read(join(proj, 'src/a.ts')), false],
  // Bash: every command of a compound line is checked.
  ['Bash(rm *)', bash('git log; rm -rf ~'), true],
  ['Bash(rm *)', bash('git log && echo "rm -rf ~"'), false],
  ['Bash(rm *)', bash('echo $(rm -rf ~)'), true],
  ['Bash(rm *)', bash('echo `rm x`'), true],
  ['Bash(rm *)', bash('cat <(rm x)'), true],
  ['Bash(rm *)', bash('(cd /tmp; rm x)'), true],
  ['Bash(rm *)', bash('/bin/rm -rf ~'), true],
  ['Bash(rm *)', bash('"rm" -rf ~'), true],
  ['Bash(rm *)', bash('\\rm -rf ~'), true],
  ['Bash(rm *)', bash('timeout 5 rm -rf ~'), true],
  ['Bash(rm *)', bash("bash -c 'rm -rf ~'"), true],
  ['Bash(rm *)', bash('FOO=1 rm x'), true],
  ['Bash(rm *)', bash('find . -exec rm {} +'), true],
  ['Bash(rm *)', bash('ls | xargs rm'), true],
  ['Bash(rm *)', bash("echo 'rm -rf ~'"), false],
  ['Bash(timeout *)', bash('timeout 5 rm -rf ~'), true],
  ['Bash(curl * | bash)', bash('curl https://x.sh | bash'), true],
  // Read and Edit: gitignore-style paths, anchored as Claude Code anchors them.
  ['Read(./src/**)', read(join(proj, 'src/a.ts')), true],
  ['Read(./src/**)', read(join(proj, 'docs/x.md')), false],
  ['Read(src/**)', read('src/a.ts'), true],
  ['Read(.env)', read(join(proj, '.env')), true],
  ['Read(.env)', read(join(proj, 'sub/.env')), true],
  ['Read(./.env)', read(join(proj, 'sub/.env')), false],
  ['Read(*.ts)', read(join(proj, 'src/a.ts')), true],
  ['Read(**/*.md)', read(join(proj, 'docs/x.md')), true],
  ['Read(src)', read(join(proj, 'src/a.ts')), true],
  ['Read(secrets/)', read(join(proj, 'secrets/k')), true],
  ['Read(./src/**)', read(join(proj, '../outside/secret.txt')), false],
  ['Edit(/docs/**)', edit(join(proj, 'docs/x.md')), true],
  ['Edit(/docs/**)', write(join(proj, 'docs/x.md')), true],
  ['Edit(/docs/**)', read(join(proj, 'docs/x.md')), false],
  ['Write(/docs/**)', write(join(proj, 'docs/x.md')), true],
  ['Write(/docs/**)', edit(join(proj, 'docs/x.md')), false],
  ['Read(//etc/**)', read('/etc/passwd'), true],
  ['Read(~/.ssh/**)', read(join(home, '.ssh/id_rsa')), true],
  ['Read(~/.ssh/**)', read('~/.ssh/id_rsa'), true],
  ['Read(~/.ssh/**)', read(join(proj, '.ssh/id_rsa')), false],
  // Symlinks: the path as given and the file it leads to both count.
  [`Read(/${outside}/**)`, read(join(proj, 'src/link-out')), true],
  [`Read(/${outside}/**)`, read(join(proj, 'linkdir/secret.txt')), true],
  ['Read(./linkdir/**)', read(join(proj, 'linkdir/secret.txt')), true],
  // Read rules also cover the search tools, by the directory they search.
  ['Read(./src/**)', tool('Grep', { pattern: 'x', path: join(proj, 'src') }), true],
  ['Read(./src/**)', tool('Glob', { pattern: '**/*.ts' }), false],
  ['Read(/proj-missing/**)', tool('Glob', { pattern: '**' }), false],
  // WebFetch domains.
  ['WebFetch(domain:example.com)', fetchUrl('https://example.com/x'), true],
  ['WebFetch(domain:example.com)', fetchUrl('https://www.example.com/'), false],
  ['WebFetch(domain:*.example.com)', fetchUrl('https://www.example.com/'), true],
  ['WebFetch(domain:example.com)', fetchUrl('https://EXAMPLE.com/'), true],
  ['WebFetch(domain:example.com)', fetchUrl('not a url'), false],
  ['WebFetch', fetchUrl('https://anything.test/'), true],
  // MCP tools and other names.
  ['mcp__github', tool('mcp__github__get_issue'), true],
  ['mcp__github__*', tool('mcp__github__get_issue'), true],
  ['mcp__github__get_issue', tool('mcp__github__get_issue'), true],
  ['mcp__github', tool('mcp__githubx__get_issue'), false],
  ['mcp__github__create*', tool('mcp__github__get_issue'), false],
  ['mcp__gitlab', tool('mcp__github__get_issue'), false],
  ['Agent(reviewer)', tool('Agent', { subagent_type: 'reviewer' }), true],
  ['Task(reviewer)', tool('Task', { subagent_type: 'planner' }), false],
  ['todo(ship *)', tool('todo', { text: 'ship it' }), true],
  ['todo(ship *)', tool('todo', { text: 'write docs' }), false],
];

describe('matchRule', () => {
  it('has a table of at least 60 cases', () => {
    expect(table.length).toBeGreaterThanOrEqual(60);
  });

  it.each(table)('%s applies to %j: %s', (rule, [name, input], applies) => {
    expect(matchRule(rule, name, input, where)).toBe(applies);
  });

  it('throws INVALID_RULE for a rule that does not parse', () => {
    expect(() => matchRule('Bash(', 'Bash', { command: 'x' })).toThrow(expect.objectContaining({ code: 'INVALID_RULE' }));
  });
});

type AllowCase = readonly [
  rules: { allow?: string[]; deny?: string[]; ask?: string[] },
  call: readonly [string, Record<string, unknown>],
  decision: string | undefined,
];

const allowTable: readonly AllowCase[] = [
  [{ allow: ['Bash(git *)'] }, bash('git log; rm -rf ~'), undefined],
  [{ allow: ['Bash(git *)', 'Bash(rm *)'] }, bash('git log; rm -rf ~'), 'allow'],
  [{ allow: ['Bash(git *)', 'Bash(rm *)'], deny: ['Bash(rm -rf *)'] }, bash('git log; rm -rf ~'), 'deny'],
  [{ deny: ['Bash(rm -rf *)'], allow: ['Bash(rm -rf *)'] }, bash('rm -rf x'), 'deny'],
  [{ ask: ['Bash(git push *)'], allow: ['Bash(git *)'] }, bash('git push origin'), 'ask'],
  [{ ask: ['Bash(git push *)'], deny: ['Bash(git push --force *)'] }, bash('git push --force origin'), 'deny'],
  [{ allow: ['Bash(npm test && npm run lint)'] }, bash('npm test && npm run lint'), 'allow'],
  [{ allow: ['Bash(npm test *)'] }, bash('npm test && rm -rf ~'), undefined],
  [{ allow: ['Bash(rm *)'] }, bash('ls | xargs rm'), undefined],
  [{ allow: ['Bash(rm *)', 'Bash(xargs *)', 'Bash(ls)'] }, bash('ls | xargs rm'), 'allow'],
  [{ allow: ['Bash(find *)', 'Bash(rm -f)'] }, bash('find . -exec rm -f {} \\;'), undefined],
  [{ allow: ['Bash(find *)', 'Bash(rm -f *)'] }, bash('find . -exec rm -f {} \\;'), 'allow'],
  [{ allow: ['Bash(timeout *)'] }, bash('timeout 5 rm x'), undefined],
  [{ allow: ['Bash(rm x)'] }, bash('timeout 5 rm x'), 'allow'],
  [{ allow: ['Bash(sudo *)'] }, bash('sudo rm x'), undefined],
  [{ allow: ['Bash(echo *)'] }, bash('echo $(rm -rf ~)'), undefined],
  [{ allow: ['Bash(echo *)'] }, bash("echo '$(rm -rf ~)'"), 'allow'],
  [{ allow: ['Bash(git status)'] }, bash('/usr/local/bin/git status'), undefined],
  [{ allow: ['Bash(git status)'] }, bash('"git" status'), 'allow'],
  [{ allow: ['Bash(npm test)'] }, bash('npm test > out.txt'), undefined],
  [{ allow: ['Bash(npm test *)'] }, bash('npm test > out.txt'), undefined],
  [{ allow: ['Bash(echo *)'] }, bash('echo x >> ~/.bashrc'), undefined],
  [{ allow: ['Bash(npm test > *)'] }, bash('npm test > out.txt'), 'allow'],
  [{ allow: ['Bash(npm test > out.txt)'] }, bash('npm test >out.txt'), 'allow'],
  [{ allow: ['Bash(sort *)'] }, bash('sort < in.txt'), 'allow'],
  [{ allow: ['Bash(npm test)'] }, bash('npm test 2>&1 >/dev/null'), 'allow'],
  [{ allow: ['Bash(*)'] }, bash('$X -rf ~'), 'allow'],
  [{ allow: ['Bash(echo *)'] }, bash('$X -rf ~'), undefined],
  [{ allow: ['Bash(echo *)'] }, bash('echo "unterminated'), undefined],
  [{ allow: ['Edit(./src/**)'] }, edit(join(proj, 'src/a.ts')), 'allow'],
  [{ allow: ['Edit(./src/**)'] }, edit(join(proj, 'src/link-out')), undefined],
  [{ allow: ['Read(./linkdir/**)'] }, read(join(proj, 'linkdir/secret.txt')), undefined],
  [{ allow: ['Read(./linkdir/**)', `Read(/${outside}/**)`] }, read(join(proj, 'linkdir/secret.txt')), 'allow'],
  [{ allow: ['Read'], deny: ['Read(.env)'] }, read(join(proj, 'sub/.env')), 'deny'],
  [{ allow: ['mcp__github'], ask: ['mcp__github__get_issue'] }, tool('mcp__github__get_issue'), 'ask'],
];

describe('checkRules', () => {
  it.each(allowTable)('%j decides %j: %s', (rules, [name, input], decision) => {
    expect(checkRules(rules, name, input, where).decision).toBe(decision);
  });

  it('names the rules that allowed each command of a line', () => {
    const result = checkRules({ allow: ['Bash(git *)', 'Bash(npm test)'] }, 'Bash', { command: 'git status && npm test' }, where);
    expect(result).toEqual({ decision: 'allow', rules: ['Bash(git *)', 'Bash(npm test)'] });
  });
});
