// Issue 35 item 6: a protected path that is a symlink with an absolute target made bwrap fail, so the
// probe failed and, with `fallback: 'none'`, every command ran unsandboxed. A workspace file that
// still breaks bwrap must be named in a refusal, never turn into a silent downgrade.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bashHosts, bwrapStatus, okOutput, trackProcesses, workspace } from './fixtures/support.js';

const status = await bwrapStatus();
const { env } = trackProcesses();
const base = workspace();
// Link targets outside /tmp, which the sandbox replaces: the target must be visible inside.
const targets = workspace('dsh-bash-link-targets-', '/var/tmp');
const fresh = (under: string): string => mkdtempSync(join(under, 'ws-'));
const host = (cwd: string, sandbox: Record<string, unknown> = {}) =>
  bashHosts({ cwd, sandbox: { provider: 'bwrap', fallback: 'none', ...sandbox } }, env)();

describe.skipIf(!status.ok)('protected paths that are symlinks (real bubblewrap)', () => {
  for (const name of ['.git', '.husky'] as const) {
    it(`runs sandboxed, not unsandboxed, when ${name} links to an absolute path, and keeps its target read-only`, async () => {
      const ws = fresh(base);
      const target = fresh(targets);
      writeFileSync(join(target, 'HEAD'), 'ref: refs/heads/main\n');
      symlinkSync(target, join(ws, name));
      const t = await host(ws);
      const out = okOutput(await t.call('bash', { command: `echo evil > ${name}/HEAD; echo "rc=$?"; touch ok && echo writable` }));
      expect(out.sandbox).toBe('bwrap');
      expect(out.stdout).toMatch(/^rc=[1-9]\nwritable\n$/);
      expect(readFileSync(join(target, 'HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
    });
  }

  it('runs sandboxed when a configured read-only path links to an absolute path, and keeps its target read-only', async () => {
    const ws = fresh(base);
    const target = fresh(targets);
    writeFileSync(join(target, 'settings.json'), '{}\n');
    symlinkSync(join(target, 'settings.json'), join(ws, 'settings.json'));
    const t = await host(ws, { readOnlyPaths: ['settings.json'] });
    const out = okOutput(await t.call('bash', { command: 'echo evil > settings.json; echo "rc=$?"' }));
    expect(out.sandbox).toBe('bwrap');
    expect(out.stdout).toMatch(/^rc=[1-9]\n$/);
    expect(readFileSync(join(target, 'settings.json'), 'utf8')).toBe('{}\n');
  });

  describe('a workspace file that bwrap cannot mount on', () => {
    // An immutable directory: bwrap cannot create the mount point that keeps a missing read-only path from being created.
    const ws = fresh(base);
    mkdirSync(join(ws, 'locked'));
    execFileSync('chattr', ['+i', join(ws, 'locked')]);
    afterAll(() => execFileSync('chattr', ['-i', join(ws, 'locked')]));

    it('refuses every call, naming the file, even with fallback none', async () => {
      const t = await host(ws, { readOnlyPaths: ['locked/.mcp.json'] });
      const outcome = await t.call('bash', { command: 'touch ran-unsandboxed' });
      expect(outcome).toMatchObject({ status: 'denied', code: 'PRE_EXECUTE_DENIED', by: 'tool-bash/sandbox' });
      expect((outcome as { reason: string }).reason).toContain(join(ws, 'locked', '.mcp.json'));
      expect(t.host.events.list().filter((e) => e.type === 'bash/sandbox')).toEqual([]);
    });
  });
});
