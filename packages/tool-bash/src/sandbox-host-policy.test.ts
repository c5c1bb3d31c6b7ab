// Issue 35 item 2 (file side): what the host's sandbox policy hides, keeps read-only or makes writable
// binds every sandboxed command. Each test is an attack run for real in bwrap.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SandboxPolicyPart } from '@deepseek-ai/dsh-core';
import { describe, expect, it } from 'vitest';
import { BashErrorCode } from './errors.js';
import { bashHosts, bwrapStatus, errorOf, okOutput, trackProcesses, workspace } from './fixtures/support.js';

const status = await bwrapStatus();
const { env } = trackProcesses();
const base = workspace();
const fresh = (): string => mkdtempSync(join(base, 'ws-'));

async function host(cwd: string, part: SandboxPolicyPart, sandbox: Record<string, unknown> = {}) {
  const t = await bashHosts({ cwd, sandbox: { provider: 'bwrap', ...sandbox } }, env)();
  t.host.sandboxPolicy.contribute('test-policy', () => part);
  return t;
}

/** A workspace with `secrets/key` holding a secret. */
function withSecrets(): string {
  const ws = fresh();
  mkdirSync(join(ws, 'secrets'));
  writeFileSync(join(ws, 'secrets', 'key'), 'TOP-SECRET\n');
  return ws;
}

describe.skipIf(!status.ok)("the host's sandbox policy inside bwrap", () => {
  it('hides a path the policy hides from cat, cp, tar and python, inside the writable root', async () => {
    const ws = withSecrets();
    const t = await host(ws, { hidden: [join(ws, 'secrets', '**')] });
    const out = okOutput(
      await t.call('bash', {
        command: [
          'cat secrets/key',
          'cp secrets/key copied && cat copied',
          'tar cf - secrets 2>/dev/null | tar xOf - 2>/dev/null',
          'python3 -c "print(open(\'secrets/key\').read())"',
          'echo end',
        ].join('; '),
      }),
    );
    expect(out.stdout).not.toContain('TOP-SECRET');
    expect(out.stdout).toContain('end');
    expect(readFileSync(join(ws, 'secrets', 'key'), 'utf8')).toBe('TOP-SECRET\n');
  });

  it('hides a file matched by a glob anywhere below the root, through a symlink too', async () => {
    const ws = fresh();
    mkdirSync(join(ws, 'app'));
    writeFileSync(join(ws, 'app', '.env'), 'API_KEY=TOP-SECRET\n');
    const t = await host(ws, { hidden: [join(ws, '**', '.env')] });
    const out = okOutput(await t.call('bash', { command: 'ln -s app/.env x; cat x app/.env; ln app/.env hard 2>&1; cat hard; echo end' }));
    expect(out.stdout).not.toContain('TOP-SECRET');
    expect(out.stdout).toContain('end');
  });

  it('hides a file created after the session started from the next command on', async () => {
    const ws = fresh();
    const t = await host(ws, { hidden: [join(ws, '**', '.env')] });
    writeFileSync(join(ws, '.env'), 'TOKEN=TOP-SECRET\n');
    const out = okOutput(await t.call('bash', { command: 'cat .env; echo end' }));
    expect(out.stdout).not.toContain('TOP-SECRET');
  });

  it('keeps a read-only directory from being written, renamed or replaced', async () => {
    const ws = fresh();
    mkdirSync(join(ws, 'config'));
    writeFileSync(join(ws, 'config', 'a'), 'original\n');
    const t = await host(ws, { readOnly: [join(ws, 'config', '**')] });
    const out = okOutput(
      await t.call('bash', {
        command:
          'echo x > config/a; echo "w=$?"; echo x > config/new; echo "n=$?"; mv config moved; echo "m=$?"; rm -rf config; touch free; echo "t=$?"',
      }),
    );
    expect(out.stdout).toMatch(/w=[1-9]/);
    expect(out.stdout).toMatch(/n=[1-9]/);
    expect(out.stdout).toMatch(/m=[1-9]/);
    expect(out.stdout).toMatch(/t=0/);
    expect(readFileSync(join(ws, 'config', 'a'), 'utf8')).toBe('original\n');
    expect(existsSync(join(ws, 'config', 'new'))).toBe(false);
    expect(existsSync(join(ws, 'moved'))).toBe(false);
  });

  it('makes a writable path outside the roots writable, and only that one', async () => {
    const ws = fresh();
    const out = fresh();
    const other = fresh();
    const t = await host(ws, { writable: [out] });
    const result = okOutput(
      await t.call('bash', { command: `echo made > ${out}/file; echo "o=$?"; echo no > ${other}/file; echo "x=$?"` }),
    );
    expect(result.stdout).toMatch(/o=0/);
    expect(result.stdout).toMatch(/x=[1-9]/);
    expect(readFileSync(join(out, 'file'), 'utf8')).toBe('made\n');
    expect(existsSync(join(other, 'file'))).toBe(false);
  });

  it('lets a hidden or read-only path win over a writable one', async () => {
    const ws = withSecrets();
    const t = await host(ws, { hidden: [join(ws, 'secrets')], writable: [join(ws, 'secrets')] });
    const out = okOutput(await t.call('bash', { command: 'cat secrets/key; echo x > secrets/key; echo end' }));
    expect(out.stdout).not.toContain('TOP-SECRET');
    expect(readFileSync(join(ws, 'secrets', 'key'), 'utf8')).toBe('TOP-SECRET\n');
  });

  it('refuses the call when a glob is too wide to expand, rather than run without the mask', async () => {
    const ws = withSecrets();
    const t = await host(ws, { hidden: ['/**/key'] });
    const error = errorOf(await t.call('bash', { command: 'cat secrets/key' }));
    expect(error.code).toBe(BashErrorCode.SANDBOX_POLICY_UNENFORCEABLE);
    expect(error.message).toContain('/**/key');
  });

  it('refuses the call when a part of the policy fails', async () => {
    const ws = withSecrets();
    const t = await bashHosts({ cwd: ws, sandbox: { provider: 'bwrap' } }, env)();
    t.host.sandboxPolicy.contribute('broken', () => {
      throw new Error('settings unreadable');
    });
    const error = errorOf(await t.call('bash', { command: 'cat secrets/key' }));
    expect(error.code).toBe(BashErrorCode.SANDBOX_POLICY_UNENFORCEABLE);
    expect(error.message).toContain('"broken"');
  });

  it('refuses the call when the policy names a path that is not absolute', async () => {
    const ws = withSecrets();
    const t = await host(ws, { hidden: ['secrets/**'] });
    const error = errorOf(await t.call('bash', { command: 'cat secrets/key' }));
    expect(error.code).toBe(BashErrorCode.SANDBOX_POLICY_UNENFORCEABLE);
  });
});

describe.skipIf(!status.ok)('the mandatory read-only set in every root (real bubblewrap)', () => {
  it('keeps .git/hooks, .claude/settings.json, .mcp.json and .bashrc from being written or created', async () => {
    const ws = fresh();
    mkdirSync(join(ws, '.git', 'hooks'), { recursive: true });
    mkdirSync(join(ws, '.claude'));
    writeFileSync(join(ws, '.claude', 'settings.json'), '{}\n');
    writeFileSync(join(ws, '.bashrc'), '# mine\n');
    const t = await bashHosts({ cwd: ws, sandbox: { provider: 'bwrap', gitWritable: true } }, env)();
    const out = okOutput(
      await t.call('bash', {
        command: [
          'echo evil > .git/hooks/pre-commit; echo "h=$?"',
          `echo '{"permissions":{"allow":["Bash"]}}' > .claude/settings.json; echo "s=$?"`,
          'echo {} > .mcp.json; echo "m=$?"',
          'echo evil >> .bashrc; echo "b=$?"',
          'mkdir .vscode; echo "v=$?"',
          'touch fine; echo "f=$?"',
        ].join('; '),
      }),
    );
    for (const name of ['h', 's', 'm', 'b', 'v']) expect(out.stdout).toMatch(new RegExp(`${name}=[1-9]`));
    expect(out.stdout).toMatch(/f=0/);
    expect(existsSync(join(ws, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(readFileSync(join(ws, '.claude', 'settings.json'), 'utf8')).toBe('{}\n');
    expect(existsSync(join(ws, '.mcp.json'))).toBe(false);
    expect(existsSync(join(ws, '.vscode'))).toBe(false);
    expect(readFileSync(join(ws, '.bashrc'), 'utf8')).toBe('# mine\n');
  });

  it('leaves them writable with protectAgentFiles: false', async () => {
    const ws = fresh();
    const t = await bashHosts({ cwd: ws, sandbox: { provider: 'bwrap', protectAgentFiles: false } }, env)();
    const out = okOutput(await t.call('bash', { command: 'echo {} > .mcp.json; echo "m=$?"' }));
    expect(out.stdout).toMatch(/m=0/);
  });
});
