import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestHost, logProblems } from '@deepseek-ai/dsh-core/testing';
import { describe, expect, it } from 'vitest';
import { bashHosts, errorOf, okOutput, trackProcesses, workspace } from './fixtures/support.js';
import { toolBash } from './plugin.js';

const ws = workspace();
const { env, mark, marked } = trackProcesses();

const host = bashHosts({ cwd: ws, killGraceMs: 200, sandbox: { provider: 'none' } }, env);

describe('the bash tool', () => {
  it('returns stdout, stderr, a combined view and the exit code', async () => {
    const t = await host();
    const m = mark();
    const out = okOutput(await t.call('bash', { command: marked(m, 'echo out; echo err >&2; exit 3') }));
    expect(out).toMatchObject({ exitCode: 3, signal: null, stdout: 'out\n', stderr: 'err\n', truncated: false, sandbox: 'none', cwd: ws });
    expect(out.output.split('\n').sort()).toEqual(['', 'err', 'out']);
    expect(out.bytes).toEqual({ stdout: 4, stderr: 4 });
    expect(logProblems(t.host.events.list())).toEqual([]);
  });

  it('reports a shell killed by a signal with a null exit code and the signal name', async () => {
    const t = await host();
    const out = okOutput(await t.call('bash', { command: marked(mark(), 'kill -KILL $$') }));
    expect(out).toMatchObject({ exitCode: null, signal: 'SIGKILL' });
  });

  it('treats a syntax error as the command failing with exit code 2', async () => {
    const t = await host();
    const out = okOutput(await t.call('bash', { command: 'echo before; if then fi (' }));
    expect(out.exitCode).toBe(2);
    expect(out.stderr).toMatch(/syntax error/);
  });

  it('gives the command /dev/null as stdin, so commands that read it finish at once', async () => {
    const t = await host();
    const out = okOutput(await t.call('bash', { command: marked(mark(), 'cat; read -r line; echo "read=$?"; head -c 10') }));
    expect(out).toMatchObject({ exitCode: 0, stdout: 'read=1\n' });
  });

  it('carries the working directory to the next call, but not variables or functions', async () => {
    const t = await host();
    mkdirSync(join(ws, 'carry'), { recursive: true });
    okOutput(await t.call('bash', { command: 'cd carry && export CARRIED=yes && f() { echo f; }' }));
    const out = okOutput(await t.call('bash', { command: 'pwd; echo "var=[$CARRIED]"; type f >/dev/null 2>&1 || echo "no f"' }));
    expect(out.stdout).toBe(`${join(ws, 'carry')}\nvar=[]\nno f\n`);
    expect(out.cwd).toBe(join(ws, 'carry'));
  });

  it('keeps the directory a command reached even when it exits with an error', async () => {
    const t = await host();
    mkdirSync(join(ws, 'failing'), { recursive: true });
    const out = okOutput(await t.call('bash', { command: 'set -e; cd failing; false; echo unreachable' }));
    expect(out).toMatchObject({ exitCode: 1, stdout: '', cwd: join(ws, 'failing') });
  });

  it('keeps the previous directory when the command drops the EXIT trap, and ignores junk written to fd 3', async () => {
    const t = await host();
    mkdirSync(join(ws, 'trapless', 'inner'), { recursive: true });
    expect(okOutput(await t.call('bash', { command: 'trap - EXIT; cd trapless' })).cwd).toBe(ws);
    expect(okOutput(await t.call('bash', { command: 'echo junk >&3; cd trapless/inner' })).cwd).toBe(join(ws, 'trapless', 'inner'));
  });

  it('starts over in the start directory, with a notice, after a cd outside the roots', async () => {
    const t = await host();
    const out = okOutput(await t.call('bash', { command: 'cd /' }));
    expect(out.cwd).toBe(ws);
    expect(out.notices?.join('\n')).toMatch(/ended in \/, outside the workspace roots/);
    expect(okOutput(await t.call('bash', { command: 'pwd' })).stdout).toBe(`${ws}\n`);
  });

  it('falls back to the start directory, with a notice, when the current one was deleted', async () => {
    const t = await host();
    const gone = join(ws, 'soon-gone');
    mkdirSync(gone, { recursive: true });
    okOutput(await t.call('bash', { command: 'cd soon-gone' }));
    rmSync(gone, { recursive: true });
    const out = okOutput(await t.call('bash', { command: 'pwd' }));
    expect(out.stdout).toBe(`${ws}\n`);
    expect(out.notices?.join('\n')).toMatch(/soon-gone no longer exists/);
  });

  it('fails with CWD_MISSING when even the start directory is gone', async () => {
    const start = join(ws, 'start-gone');
    mkdirSync(start);
    const t = await createTestHost({ plugins: [toolBash({ cwd: start, roots: [ws], env: { set: env }, sandbox: { provider: 'none' } })] });
    rmSync(start, { recursive: true });
    expect(errorOf(await t.call('bash', { command: 'true' })).code).toBe('CWD_MISSING');
  });

  it('passes only allow-listed host variables, so secrets stay out by default', async () => {
    process.env.DSH_TEST_SECRET_TOKEN = 'hunter2';
    process.env.LC_DSH_TEST = 'prefix-allowed';
    try {
      const t = await host({ env: { set: { FIXED: 'fixed-value' } } });
      const out = okOutput(
        await t.call('bash', { command: 'echo "[$DSH_TEST_SECRET_TOKEN] $LC_DSH_TEST $FIXED"; test -n "$PATH" && echo path' }),
      );
      expect(out.stdout).toBe('[] prefix-allowed fixed-value\npath\n');
      const custom = await host({ env: { allow: ['DSH_TEST_SECRET_TOKEN', 'PATH'] } });
      expect(okOutput(await custom.call('bash', { command: 'echo "$DSH_TEST_SECRET_TOKEN [$HOME]"' })).stdout).toBe('hunter2 []\n');
    } finally {
      delete process.env.DSH_TEST_SECRET_TOKEN;
      delete process.env.LC_DSH_TEST;
    }
  });

  it('clamps a timeout above the maximum and says so', async () => {
    const t = await host({ maxTimeoutMs: 5_000, defaultTimeoutMs: 1_000 });
    const out = okOutput(await t.call('bash', { command: 'true', timeout: 60_000 }));
    expect(out.notices).toEqual(['the timeout of 60000 ms was lowered to the maximum, 5000 ms']);
  });

  it('fails with SPAWN_FAILED when the shell does not exist', async () => {
    const t = await host({ shell: '/nonexistent/bash' });
    const error = errorOf(await t.call('bash', { command: 'true' }));
    expect(error.code).toBe('SPAWN_FAILED');
    expect(error.message).toMatch(/\/nonexistent\/bash.*ENOENT/);
  });

  it.each([
    [{ command: '' }, 'command: must not be empty'],
    [{ command: '  \n\t ' }, 'command: must not be empty'],
    [{ command: 'echo a\u0000b' }, 'command: must not contain NUL bytes'],
    [{ command: 'true', timeout: -5 }, 'timeout:'],
    [{ command: 'true', timeout: 1.5 }, 'timeout:'],
    [{ command: 'true', cwd: '/' }, 'cwd'],
    [{}, 'command:'],
  ])('rejects %j with INVALID_ARGS naming the field, and runs nothing', async (args, message) => {
    const t = await host();
    const error = errorOf(await t.call('bash', args));
    expect(error.code).toBe('INVALID_ARGS');
    expect(error.message).toContain(message);
    expect(t.host.events.list().some((e) => (e.type as string) === 'bash/sandbox')).toBe(false);
  });

  it('rejects a command too long for one argument string', async () => {
    const t = await host();
    expect(errorOf(await t.call('bash', { command: `echo ${'x'.repeat(100_001)}` })).code).toBe('INVALID_ARGS');
  });

  it('logs the sandbox of every call that runs as a bash/sandbox event', async () => {
    const t = await host();
    await t.call('bash', { command: 'true' });
    await t.call('bash', { command: 'true' });
    const logged = t.host.events.list().filter((e) => (e.type as string) === 'bash/sandbox');
    expect(logged.map((e) => e.data)).toEqual([{ provider: 'none' }, { provider: 'none' }]);
  });

  it('shows the command on the pending card and the exit status and output on the completed one', async () => {
    const t = await host();
    await t.call('bash', { command: 'echo shown; exit 4', description: 'shows a card' });
    const [pending, completed] = t.ui.cards;
    expect(pending).toMatchObject({
      kind: 'pending',
      card: { title: 'bash', summary: 'shows a card', body: 'echo shown; exit 4', format: 'code' },
    });
    expect(completed).toMatchObject({ kind: 'completed', card: { summary: 'exit 4', body: 'shown\n' } });
  });

  it('writes a file that a later call reads: commands really run in the workspace', async () => {
    const t = await host();
    writeFileSync(join(ws, 'input.txt'), 'from the test\n');
    okOutput(await t.call('bash', { command: 'tr a-z A-Z < input.txt > output.txt' }));
    expect(okOutput(await t.call('bash', { command: 'cat output.txt' })).stdout).toBe('FROM THE TEST\n');
  });
});
