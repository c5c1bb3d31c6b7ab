// Issue 35 item 2: the permission rules and Claude Code's `sandbox` settings bind where commands run.
// The attacks run in real bubblewrap through the real bash tool; the settings tests read real files.
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { toolBash } from '@deepseek-ai/dsh-tool-bash';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { probeBwrap } from './fixtures/bwrap.js';
import { makeProject, type Project } from './fixtures/project.js';
import { PermissionsErrorCode, type PermissionsOptions, permissions } from './index.js';

const bwrap = await probeBwrap();

let project: Project;
beforeEach(() => {
  project = makeProject();
  project.write('secrets/key', 'TOP-SECRET\n');
  project.write('config/a', 'original\n');
});
afterEach(() => project.dispose());

/** Writes a whole settings object (`permissions` and `sandbox`) to one of the project's settings files. */
function settings(which: 'user' | 'project' | 'local', value: unknown): string {
  const file =
    which === 'user'
      ? join(project.home, '.claude', 'settings.json')
      : join(project.dir, '.claude', which === 'local' ? 'settings.local.json' : 'settings.json');
  return project.write(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** Real bash in bwrap, governed by permissions reading the project's settings files. */
async function sandboxedHost(options: PermissionsOptions = {}) {
  const perms = permissions({ projectDir: project.dir, homeDir: project.home, ...options });
  const t = await createTestHost({
    cwd: project.dir,
    homeDir: project.home,
    plugins: [toolBash({ sandbox: { provider: 'bwrap' } }), perms],
  });
  const run = async (command: string): Promise<string> => {
    const outcome = await t.call('bash', { command });
    expect(outcome.status).toBe('ok');
    return (outcome as unknown as { output: { stdout: string } }).output.stdout;
  };
  return { ...t, perms, run };
}

describe.skipIf(!bwrap.ok)('permission rules inside the bash sandbox (real bubblewrap)', () => {
  it('hides what a Read deny names from cat, cp, tar and python', async () => {
    settings('project', { permissions: { allow: ['Bash'], deny: ['Read(./secrets/**)'] } });
    const t = await sandboxedHost();
    const out = await t.run(
      [
        'd=secrets; cat $d/key',
        'cp $d/key copied && cat copied',
        'tar cf - $d 2>/dev/null | tar xOf - 2>/dev/null',
        `python3 -c "print(open('sec' + 'rets/key').read())"`,
        'ln -s $d/key link; cat link',
        'echo end',
      ].join('; '),
    );
    expect(out).not.toContain('TOP-SECRET');
    expect(out).toContain('end');
  });

  it('hides a .env that a sandbox.filesystem.denyRead names', async () => {
    project.write('.env', 'API_KEY=TOP-SECRET\n');
    settings('project', { permissions: { allow: ['Bash'] }, sandbox: { filesystem: { denyRead: ['./.env'] } } });
    const t = await sandboxedHost();
    const out = await t.run('f=.env; cat $f; echo end');
    expect(out).not.toContain('TOP-SECRET');
    expect(out).toContain('end');
  });

  it('keeps what an Edit deny names read-only: no write, no rename', async () => {
    settings('project', { permissions: { allow: ['Bash'], deny: ['Edit(./config/**)'] } });
    const t = await sandboxedHost();
    const out = await t.run('d=config; echo x > $d/a; echo "w=$?"; mv $d moved; echo "m=$?"');
    expect(out).toMatch(/w=[1-9]/);
    expect(out).toMatch(/m=[1-9]/);
    expect(readFileSync(join(project.dir, 'config', 'a'), 'utf8')).toBe('original\n');
    expect(existsSync(join(project.dir, 'moved'))).toBe(false);
  });

  it('makes what an Edit allow names writable, outside the workspace too', async () => {
    const outside = realpathSync(mkdtempSync(join(project.root, 'out-')));
    settings('project', { permissions: { allow: ['Bash', `Edit(/${outside}/**)`] } });
    const t = await sandboxedHost();
    const out = await t.run(`echo made > ${outside}/file; echo "o=$?"`);
    expect(out).toMatch(/o=0/);
    expect(readFileSync(join(outside, 'file'), 'utf8')).toBe('made\n');
  });

  it('applies a rule added to a settings file from the next command after reload', async () => {
    settings('project', { permissions: { allow: ['Bash'] } });
    const t = await sandboxedHost();
    expect(await t.run('d=secrets; cat $d/key')).toContain('TOP-SECRET');
    settings('project', { permissions: { allow: ['Bash'], deny: ['Read(./secrets/**)'] } });
    await t.perms.reload();
    expect(await t.run('d=secrets; cat $d/key; echo end')).not.toContain('TOP-SECRET');
  });

  it('contributes nothing with sandboxPolicy: false', async () => {
    settings('project', { permissions: { allow: ['Bash'], deny: ['Read(./secrets/**)'] } });
    const t = await sandboxedHost({ sandboxPolicy: false });
    expect(t.host.sandboxPolicy.current().sources).toEqual([]);
  });
});

describe('the sandbox settings, read as Claude Code reads them', () => {
  it('joins lists across user, project and local files; a single value comes from the highest file', async () => {
    settings('user', {
      permissions: { additionalDirectories: ['~/shared'] },
      sandbox: { network: { allowedDomains: ['user.example'], allowLocalBinding: true }, filesystem: { denyRead: ['~/.aws'] } },
    });
    settings('project', {
      sandbox: { network: { allowedDomains: ['project.example'], allowLocalBinding: false }, filesystem: { denyRead: ['.env'] } },
    });
    settings('local', {
      permissions: { allow: ['WebFetch(domain:rule.example)'], deny: ['WebFetch(domain:evil.example)'] },
      sandbox: { filesystem: { denyWrite: ['//etc/hosts'] } },
    });
    const perms = permissions({ projectDir: project.dir, homeDir: project.home });
    const t = await createTestHost({ cwd: project.dir, homeDir: project.home, plugins: [perms] });
    const policy = t.host.sandboxPolicy.current();
    expect(policy.hidden).toEqual([join(project.home, '.aws'), join(project.dir, '.env')]);
    expect(policy.readOnly).toEqual(['/etc/hosts']);
    expect(policy.writable).toEqual([join(project.home, 'shared')]);
    expect(policy.network.allowedDomains).toEqual(['rule.example', 'user.example', 'project.example']);
    expect(policy.network.deniedDomains).toEqual(['evil.example']);
    expect(policy.network.allowLocalBinding).toBe(false);
  });

  it('maps rule paths as the rules read them: a bare name at any depth, ~, // and / anchors', async () => {
    settings('project', {
      permissions: { deny: ['Read(.env)', 'Read(~/.ssh/**)', 'Read(//etc/secret)', 'Read(/build/)', 'Edit(src/*.ts)'] },
    });
    const perms = permissions({ projectDir: project.dir, homeDir: project.home });
    const t = await createTestHost({ cwd: project.dir, homeDir: project.home, plugins: [perms] });
    const policy = t.host.sandboxPolicy.current();
    expect(policy.hidden).toEqual([
      join(project.dir, '**', '.env'),
      join(project.home, '.ssh', '**'),
      '/etc/secret',
      join(project.dir, 'build'),
    ]);
    expect(policy.readOnly).toEqual([join(project.dir, 'src', '*.ts')]);
  });

  it('reports unknown keys, wrong types and unsupported settings with file and line', async () => {
    const file = settings('project', {
      sandbox: {
        enabled: false,
        excludedCommands: ['docker'],
        autoAllowBashIfSandboxed: true,
        allowUnsandboxedCommands: true,
        filesystem: { allowRead: ['.'], denyRaed: ['x'] },
        network: { allowUnixSockets: ['/var/run/docker.sock'], httpProxyPort: 'x' },
        failIfUnavailable: true,
      },
    });
    const perms = permissions({ projectDir: project.dir, homeDir: project.home });
    await createTestHost({ cwd: project.dir, homeDir: project.home, plugins: [perms] });
    const problems = perms.problems().filter((p) => p.file === file);
    const byLine = (line: number) => problems.filter((p) => p.line === line).map((p) => p.code);
    expect(byLine(3)).toEqual([PermissionsErrorCode.SANDBOX_SETTING_UNSUPPORTED]); // enabled: false
    expect(byLine(4)).toEqual([PermissionsErrorCode.SANDBOX_SETTING_UNSUPPORTED]); // excludedCommands
    expect(byLine(7)).toEqual([PermissionsErrorCode.SANDBOX_SETTING_UNSUPPORTED]); // autoAllowBashIfSandboxed
    expect(byLine(8)).toEqual([PermissionsErrorCode.SANDBOX_SETTING_UNSUPPORTED]); // allowUnsandboxedCommands
    expect(byLine(10)).toEqual([PermissionsErrorCode.SANDBOX_SETTING_UNSUPPORTED]); // filesystem.allowRead
    expect(byLine(13)).toEqual([PermissionsErrorCode.SANDBOX_SETTING_UNKNOWN]); // filesystem.denyRaed
    expect(byLine(18)).toEqual([PermissionsErrorCode.SANDBOX_SETTING_UNSUPPORTED]); // network.allowUnixSockets
    expect(byLine(21)).toEqual([PermissionsErrorCode.INVALID_SETTINGS]); // httpProxyPort
    expect(byLine(23)).toEqual([PermissionsErrorCode.SANDBOX_SETTING_UNSUPPORTED]); // failIfUnavailable
    expect(problems.every((p) => p.message.startsWith('.claude/settings.json:'))).toBe(true);
  });

  it('reports the network settings no sandbox of dsh honours, so none is silently ignored', async () => {
    const file = settings('project', {
      sandbox: { network: { allowAllUnixSockets: true, httpProxyPort: 8080, socksProxyPort: 1080, allowLocalBinding: true } },
    });
    const perms = permissions({ projectDir: project.dir, homeDir: project.home });
    await createTestHost({ cwd: project.dir, homeDir: project.home, plugins: [perms] });
    const problems = perms.problems().filter((p) => p.file === file);
    expect(problems.map((p) => [p.line, p.code])).toEqual([
      [4, PermissionsErrorCode.SANDBOX_SETTING_UNSUPPORTED],
      [5, PermissionsErrorCode.SANDBOX_SETTING_UNSUPPORTED],
      [6, PermissionsErrorCode.SANDBOX_SETTING_UNSUPPORTED],
    ]);
    expect(problems[0]?.message).toMatch(/"sandbox\.network\.allowAllUnixSockets": not supported: .*unix sockets stay denied/);
    expect(problems[1]?.message).toMatch(/"sandbox\.network\.httpProxyPort": not supported: dsh runs its own proxy/);
    // false asks for nothing dsh does not already do.
    settings('project', { sandbox: { network: { allowAllUnixSockets: false } } });
    const again = permissions({ projectDir: project.dir, homeDir: project.home });
    await createTestHost({ cwd: project.dir, homeDir: project.home, plugins: [again] });
    expect(again.problems().filter((p) => p.file === file)).toEqual([]);
  });

  it('reads the managed file last, so its single values win and its domains are kept apart', async () => {
    const managed = join(project.root, 'managed-settings.json');
    writeFileSync(managed, JSON.stringify({ sandbox: { network: { allowedDomains: ['corp.example'], allowManagedDomainsOnly: true } } }));
    settings('project', { sandbox: { network: { allowedDomains: ['project.example'], allowManagedDomainsOnly: false } } });
    const perms = permissions({
      projectDir: project.dir,
      homeDir: project.home,
      settingsFiles: [join(project.dir, '.claude', 'settings.json'), managed],
    });
    const t = await createTestHost({ cwd: project.dir, homeDir: project.home, plugins: [perms] });
    const { network } = t.host.sandboxPolicy.current();
    expect(network.allowManagedDomainsOnly).toBe(true);
    expect(network.allowedDomains).toEqual(['project.example', 'corp.example']);
  });
});
