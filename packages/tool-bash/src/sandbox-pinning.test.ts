// Issue 35 item 6: protected paths inside a writable root must not be replaced by renaming a parent,
// nor created when missing. Each test is the attack as the issue describes it, run for real in bwrap.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bashHosts, bwrapStatus, okOutput, trackProcesses, workspace } from './fixtures/support.js';

const status = await bwrapStatus();
const { env } = trackProcesses();
const base = workspace();
const fresh = (): string => mkdtempSync(join(base, 'ws-'));
const host = (cwd: string, sandbox: Record<string, unknown> = {}) => bashHosts({ cwd, sandbox: { provider: 'bwrap', ...sandbox } }, env)();

describe.skipIf(!status.ok)('protected paths inside a writable root (real bubblewrap)', () => {
  it('keeps a read-denied file hidden when a command renames its parent and plants a decoy', async () => {
    const ws = fresh();
    mkdirSync(join(ws, 'config'));
    writeFileSync(join(ws, 'config', 'secrets.json'), 'TOP-SECRET\n');
    const t = await host(ws, { denyRead: [join(ws, 'config', 'secrets.json')] });
    await t.call('bash', { command: 'mv config config-moved && mkdir config && echo x > config/secrets.json' });
    const out = okOutput(await t.call('bash', { command: 'cat config-moved/secrets.json config/secrets.json 2>/dev/null; echo end' }));
    expect(out.stdout).not.toMatch(/TOP-SECRET/);
    expect(readFileSync(join(ws, 'config', 'secrets.json'), 'utf8')).toBe('TOP-SECRET\n');
  });

  it('keeps a default mask in place when home is a root and its parent is renamed', async () => {
    const home = fresh();
    mkdirSync(join(home, '.config', 'gh'), { recursive: true });
    writeFileSync(join(home, '.config', 'gh', 'hosts.yml'), 'oauth_token: TOP-SECRET\n');
    const t = await host(home, { home });
    await t.call('bash', { command: 'mv .config .config-moved && mkdir -p .config/gh && echo x > .config/gh/hosts.yml' });
    const out = okOutput(await t.call('bash', { command: 'cat .config-moved/gh/hosts.yml .config/gh/hosts.yml 2>/dev/null; echo end' }));
    expect(out.stdout).not.toMatch(/TOP-SECRET/);
    expect(readFileSync(join(home, '.config', 'gh', 'hosts.yml'), 'utf8')).toBe('oauth_token: TOP-SECRET\n');
  });

  it('keeps a nested read-only path from being replaced through a renamed parent', async () => {
    const ws = fresh();
    mkdirSync(join(ws, '.claude', 'commands'), { recursive: true });
    writeFileSync(join(ws, '.claude', 'commands', 'deploy.md'), 'safe\n');
    const t = await host(ws, { readOnlyPaths: ['.claude/commands'] });
    const out = okOutput(
      await t.call('bash', {
        command: 'mv .claude .claude-old && mkdir -p .claude/commands && echo evil > .claude/commands/deploy.md; echo "rc=$?"',
      }),
    );
    expect(out.stdout).toMatch(/^rc=[1-9]/);
    expect(readFileSync(join(ws, '.claude', 'commands', 'deploy.md'), 'utf8')).toBe('safe\n');
    expect(existsSync(join(ws, '.claude-old'))).toBe(false);
  });

  it('keeps a read-only path that does not exist yet from being created, and leaves nothing behind', async () => {
    const ws = fresh();
    const t = await host(ws, { readOnlyPaths: ['.mcp.json'] });
    const out = okOutput(
      await t.call('bash', { command: 'echo \'{"mcpServers":{}}\' > .mcp.json; echo "rc=$?"; touch other && echo other' }),
    );
    expect(out.stdout).toMatch(/^rc=[1-9]\nother\n$/);
    expect(existsSync(join(ws, '.mcp.json'))).toBe(false);
    expect(existsSync(join(ws, 'other'))).toBe(true);
  });

  describe('with git writes allowed', () => {
    const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });
    const repo = (): string => {
      const ws = fresh();
      git(ws, 'init', '-q');
      git(ws, 'config', 'user.email', 'dsh@example.invalid');
      git(ws, 'config', 'user.name', 'dsh');
      return ws;
    };

    it('lets a command commit, while .git/hooks and .git/config stay read-only', async () => {
      const ws = repo();
      const t = await host(ws, { gitWritable: true });
      const out = okOutput(
        await t.call('bash', {
          command: [
            'echo content > file.txt && git add file.txt && git commit -qm "from the sandbox" && echo committed',
            'echo "echo pwned" > .git/hooks/pre-commit; echo "hook=$?"',
            'git config core.fsmonitor "touch /tmp/pwned"; echo "config=$?"',
          ].join('; '),
        }),
      );
      expect(out.stdout).toMatch(/^committed\nhook=[1-9]\nconfig=[1-9]\n$/);
      expect(git(ws, 'log', '--format=%s')).toBe('from the sandbox\n');
      expect(existsSync(join(ws, '.git', 'hooks', 'pre-commit'))).toBe(false);
      expect(readFileSync(join(ws, '.git', 'config'), 'utf8')).not.toMatch(/fsmonitor/);
    });

    it('keeps a missing .git/hooks from being created, or replaced through a renamed .git', async () => {
      const ws = repo();
      execFileSync('rm', ['-rf', join(ws, '.git', 'hooks')]);
      const t = await host(ws, { gitWritable: true });
      const out = okOutput(
        await t.call('bash', {
          command: 'mkdir -p .git/hooks && echo "echo pwned" > .git/hooks/pre-commit; echo "made=$?"; mv .git .git-old; echo "moved=$?"',
        }),
      );
      expect(out.stdout).toMatch(/^made=[1-9]\nmoved=[1-9]\n$/);
      expect(existsSync(join(ws, '.git', 'hooks'))).toBe(false);
      expect(existsSync(join(ws, '.git', 'HEAD'))).toBe(true);
    });
  });
});
