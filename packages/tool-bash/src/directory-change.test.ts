import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bashHosts, okOutput, trackProcesses, workspace } from './fixtures/support.js';
import { mayChangeDirectory } from './internal/directory-change.js';

const ws = workspace();
const { env } = trackProcesses();
const host = bashHosts({ cwd: ws, sandbox: { provider: 'none' } }, env);

mkdirSync(join(ws, 'sub'), { recursive: true });
// A file named `cd` lets a glob spell the builtin; a script lets `.` and `source` run a cd.
writeFileSync(join(ws, 'cd'), '');
writeFileSync(join(ws, 'go-sub.sh'), 'cd sub\n');

describe('which commands run without the directory report', () => {
  it.each([
    ['true'],
    ['ls -la'],
    ['grep -rn "needle" src/ | head -5'],
    ['npm test --silent 2>&1; echo done'],
    ["echo 'hello world' > out.txt && wc -l out.txt"],
  ])('skips it for %s, which cannot change the directory', (command) => {
    expect(mayChangeDirectory(command, {})).toBe(false);
  });

  it('keeps it when the environment makes bash run code the command does not contain', () => {
    for (const name of ['BASH_ENV', 'BASHOPTS', 'SHELLOPTS', 'BASH_FUNC_ls%%']) {
      expect(mayChangeDirectory('true', { [name]: 'x' }), name).toBe(true);
    }
  });

  // Each command reaches `sub` without spelling `cd` plainly; real bash runs it, and the next call must start there.
  it.each([
    ['a plain cd', 'cd sub'],
    ['single quotes inside the word', "c'd' sub"],
    ['double quotes inside the word', '"c"d sub'],
    ['a backslash inside the word', 'c\\d sub'],
    ['a glob matching a file named cd', 'c? sub'],
    ['a bracket glob', '[c]d sub'],
    ['brace expansion', '{cd,} sub'],
    ['a variable as the command word', 'x=cd; $x sub'],
    ['command substitution as the command word', '`echo cd` sub'],
    ['pushd', 'pushd sub >/dev/null'],
    ['eval of a quoted string', 'eval "c""d sub"'],
    ['the . builtin', '. ./go-sub.sh'],
    ['source', 'source go-sub.sh'],
    ['builtin', 'builtin cd sub'],
    ['command', 'command cd sub'],
  ])('tracks the directory after %s', async (_how, command) => {
    expect(mayChangeDirectory(command, {})).toBe(true);
    const t = await host();
    expect(okOutput(await t.call('bash', { command })).cwd).toBe(join(ws, 'sub'));
    expect(okOutput(await t.call('bash', { command: 'pwd' })).stdout).toBe(`${join(ws, 'sub')}\n`);
  });

  it('opens fd 3 only for commands that may change directory, and always for a shell other than bash', async () => {
    const probe = 'echo report >&3 2>/dev/null || echo no-fd-3';
    expect(okOutput(await (await host()).call('bash', { command: probe })).stdout).toBe('no-fd-3\n');
    expect(okOutput(await (await host()).call('bash', { command: `cd . && ${probe}` })).stdout).toBe('');
    expect(okOutput(await (await host({ shell: '/bin/sh' })).call('bash', { command: probe })).stdout).toBe('');
  });

  it('tracks the directory when BASH_ENV runs a script that changes it', async () => {
    const t = await host({ env: { set: { ...env, BASH_ENV: join(ws, 'go-sub.sh') } } });
    expect(okOutput(await t.call('bash', { command: 'true' })).cwd).toBe(join(ws, 'sub'));
  });
});
