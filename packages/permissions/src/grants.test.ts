import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { permissionHost } from './fixtures/hosts.js';
import { makeProject, type Project } from './fixtures/project.js';

let project: Project;
beforeEach(() => {
  project = makeProject();
});
afterEach(() => project.dispose());

const grantsFile = () => join(project.dir, '.dsh', 'permission-grants.json');

describe('remembered approvals', () => {
  it('offers session and project scopes with suggested rules when only the mode asks', async () => {
    const t = await permissionHost(project, { settingsFiles: false });
    await t.call('shell', { command: 'npm run build -- --watch' });
    expect(t.prompts[0]?.remember).toEqual({
      scopes: ['session', 'project'],
      suggestions: [
        { label: 'exactly this command', rules: ['Bash(npm run build -- --watch)'] },
        { label: 'commands starting with npm run', rules: ['Bash(npm run *)'] },
      ],
    });
    expect(t.prompts[0]?.decision).toMatchObject({ decision: 'ask', rememberable: true });
  });

  it('remembers for the session: the same call then runs unasked, in this session only', async () => {
    const t = await permissionHost(project, { settingsFiles: false }, { answer: 'allowed-session' });
    expect((await t.call('shell', { command: 'make test' })).status).toBe('ok');
    expect((await t.call('shell', { command: 'make test' })).status).toBe('ok');
    expect(t.prompts).toHaveLength(1);
    const [grant] = await t.perms.grants.list();
    expect(grant).toMatchObject({ scope: 'session', rules: ['Bash(make test)'], agent: 'main', session: t.host.session });
    const decision = t.host.events.list().filter((e) => e.type === 'permissions/decision')[1];
    expect(decision?.data).toMatchObject({ decision: 'allow', by: [{ kind: 'grant', grant: grant?.id, rule: 'Bash(make test)' }] });
    const other = await permissionHost(project, { settingsFiles: false });
    expect((await other.call('shell', { command: 'make test' })).status).toBe('denied');
    expect(other.prompts).toHaveLength(1);
  });

  it('shows in the session log which grant an answer created and which grant answered a later call', async () => {
    const t = await permissionHost(project, { settingsFiles: false }, { answer: 'allowed-session' });
    await t.call('shell', { command: 'make test' });
    await t.call('shell', { command: 'make test' });
    const [grant] = await t.perms.grants.list();
    const answers = t.host.events.list().filter((e) => e.type === 'approval/answer');
    expect(answers.map((e) => e.data)).toEqual([
      expect.objectContaining({ answer: 'allowed-once', source: 'provider', grant: grant?.id }),
      expect.objectContaining({ answer: 'allowed', source: 'remembered', grant: grant?.id }),
    ]);
    expect(t.host.events.list().filter((e) => e.type === 'approval/request')).toHaveLength(2);
  });

  it('remembers for the project in the grants file, for the same agent only', async () => {
    const t = await permissionHost(project, { settingsFiles: false }, { answer: 'allowed-project', rules: ['Bash(make *)'] });
    expect((await t.call('shell', { command: 'make test' })).status).toBe('ok');
    const stored = JSON.parse(readFileSync(grantsFile(), 'utf8'));
    expect(stored).toMatchObject({ version: 1, grants: [{ scope: 'project', rules: ['Bash(make *)'], agent: 'main' }] });
    const later = await permissionHost(project, { settingsFiles: false });
    expect((await later.call('shell', { command: 'make lint' })).status).toBe('ok');
    expect(later.prompts).toHaveLength(0);
    const otherAgent = await permissionHost(project, { settingsFiles: false, agent: 'reviewer' });
    expect((await otherAgent.call('shell', { command: 'make lint' })).status).toBe('denied');
    expect(await otherAgent.perms.grants.list()).toEqual([]);
    expect(await otherAgent.perms.grants.list({ all: true })).toHaveLength(1);
    const added = t.host.events.list().find((e) => e.type === 'permissions/grant');
    expect(added?.data).toMatchObject({ action: 'added', grant: { scope: 'project' } });
  });

  it('keeps project grants apart when two projects share one grants file', async () => {
    const shared = join(project.root, 'shared-grants.json');
    const other = makeProject();
    try {
      const a = await permissionHost(project, { settingsFiles: false, grantsFile: shared }, { answer: 'allowed-project' });
      expect((await a.call('shell', { command: 'make' })).status).toBe('ok');
      const b = await permissionHost(other, { settingsFiles: false, grantsFile: shared });
      expect((await b.call('shell', { command: 'make' })).status).toBe('denied');
      expect(await b.perms.grants.list()).toEqual([]);
      expect((await b.perms.grants.list({ all: true }))[0]?.project).toBe(project.dir);
    } finally {
      other.dispose();
    }
  });

  it('never lets a grant override a configured deny or ask rule', async () => {
    const t = await permissionHost(project, { settingsFiles: false, rules: { deny: ['Bash(rm *)'], ask: ['Bash(git push *)'] } });
    await t.perms.grants.add('project', ['Bash', 'Bash(rm *)', 'Bash(git push *)']);
    await t.perms.grants.add('session', ['Bash(git push origin)']);
    expect(await t.call('shell', { command: 'rm -rf build' })).toMatchObject({ status: 'denied', stage: 'pre-execute' });
    expect(await t.call('shell', { command: 'git push origin' })).toMatchObject({ status: 'denied', stage: 'approval' });
    expect(t.prompts[0]?.remember).toEqual({ scopes: [], suggestions: [] });
    expect((await t.call('shell', { command: 'make' })).status).toBe('ok');
  });

  it('allows once, and remembers nothing, when the prompt remembers what was not offered', async () => {
    const t = await permissionHost(project, { settingsFiles: false, rules: { ask: ['Bash(git push *)'] } }, { answer: 'allowed-project' });
    expect((await t.call('shell', { command: 'git push' })).status).toBe('ok');
    expect(await t.perms.grants.list()).toEqual([]);
    expect(t.perms.problems()[0]).toMatchObject({ code: 'INVALID_GRANT' });
    expect((await t.call('shell', { command: 'git push' })).status).toBe('ok');
    expect(t.prompts).toHaveLength(2);
  });

  it('passes plain answers through, and offers only the scopes configured', async () => {
    const t = await permissionHost(project, { settingsFiles: false, grantsFile: false }, { answer: 'rejected', message: 'not now' });
    expect(await t.call('shell', { command: 'ls' })).toMatchObject({ status: 'denied', code: 'APPROVAL_REJECTED', reason: 'not now' });
    expect(t.prompts[0]?.remember.scopes).toEqual(['session']);
  });

  it('lists and revokes grants, and asks again after a revoke', async () => {
    const t = await permissionHost(project, { settingsFiles: false }, (request) =>
      request.tool.name === 'shell' ? { answer: 'allowed-project' } : 'rejected',
    );
    await t.call('shell', { command: 'make' });
    const [grant] = await t.perms.grants.list();
    expect(grant?.scope).toBe('project');
    expect(await t.perms.grants.revoke(grant?.id ?? '')).toBe(true);
    expect(await t.perms.grants.revoke(grant?.id ?? '')).toBe(false);
    expect(await t.perms.grants.list()).toEqual([]);
    await t.call('shell', { command: 'make' });
    expect(t.prompts).toHaveLength(2);
    expect(
      t.host.events
        .list()
        .filter((e) => e.type === 'permissions/grant')
        .map((e) => (e.data as { action: string }).action),
    ).toEqual(['added', 'revoked', 'added']);
  });

  it('refuses a grant whose rule does not parse', async () => {
    const t = await permissionHost(project, { settingsFiles: false });
    await expect(t.perms.grants.add('session', ['Bash('])).rejects.toMatchObject({ code: 'INVALID_GRANT' });
    await expect(t.perms.grants.add('session', [])).rejects.toMatchObject({ code: 'INVALID_GRANT' });
  });
});

describe('when the grants file is consulted', () => {
  it('only once no deny or ask rule has decided: a grants path that cannot be read fails only calls that get to allow rules', async () => {
    // A link to itself: stat fails with ELOOP on every Node (a missing folder, ENOTDIR, reads as no file
    // from Node 22 on).
    const grantsFile = join(project.dir, 'grants-loop.json');
    symlinkSync('grants-loop.json', grantsFile);
    const rules = { deny: ['Bash(rm *)'], ask: ['Bash(git push *)'], allow: ['Bash(make)'] };
    const t = await permissionHost(project, { settingsFiles: false, grantsFile, rules });
    const denied = await t.call('shell', { command: 'rm -rf build' });
    expect(denied.status === 'denied' && denied.reason).toMatch(/denied by deny rule "Bash\(rm \*\)"/);
    expect(await t.call('shell', { command: 'git push origin' })).toMatchObject({ status: 'denied', stage: 'approval' });
    expect(t.prompts).toHaveLength(1);
    expect(t.prompts[0]?.decision?.reason).toMatch(/approval required by ask rule "Bash\(git push \*\)"/);
    // Allow rules and grants are weighed together, so a call that gets to them needs the file: it fails closed.
    const allowed = await t.call('shell', { command: 'make' });
    expect(allowed).toMatchObject({ status: 'denied', reason: expect.stringMatching(/ELOOP/) });
    expect(t.ran.calls).toHaveLength(0);
  });
});

describe('a corrupted grants file', () => {
  it('is reported clearly, never overwritten, and leaves session grants working', async () => {
    const garbage = '{"version": 1, "grants": [ {"id": "x", "rules": ["Bash"]} ';
    project.write('.dsh/permission-grants.json', garbage);
    const t = await permissionHost(project, { settingsFiles: false }, (request) =>
      (request.args as { command: string }).command === 'make' ? { answer: 'allowed-project' } : { answer: 'allowed-session' },
    );
    await expect(t.perms.grants.list()).rejects.toMatchObject({
      code: 'GRANTS_FILE_CORRUPT',
      message: expect.stringContaining('left untouched'),
    });
    expect((await t.call('shell', { command: 'make' })).status).toBe('ok');
    expect(readFileSync(grantsFile(), 'utf8')).toBe(garbage);
    expect(t.perms.problems().map((p) => p.code)).toEqual(['GRANTS_FILE_CORRUPT']);
    expect((await t.call('shell', { command: 'ls' })).status).toBe('ok');
    expect((await t.call('shell', { command: 'ls' })).status).toBe('ok');
    expect(t.prompts).toHaveLength(2);
  });

  it('keeps entries it does not understand when it rewrites the file', async () => {
    project.write('.dsh/permission-grants.json', JSON.stringify({ version: 1, note: 'mine', grants: [{ id: 'odd', weird: true }] }));
    const t = await permissionHost(project, { settingsFiles: false });
    await t.perms.grants.add('project', ['Bash(make)']);
    const stored = JSON.parse(readFileSync(grantsFile(), 'utf8'));
    expect(stored.note).toBe('mine');
    expect(stored.grants).toHaveLength(2);
    expect(stored.grants[0]).toEqual({ id: 'odd', weird: true });
    expect((await t.call('shell', { command: 'make' })).status).toBe('ok');
    expect(t.perms.problems()[0]?.message).toMatch(/entry 0 is not a valid grant; it is ignored and kept/);
  });

  it('gives up with GRANTS_LOCK_TIMEOUT when another live writer holds the lock, writing nothing', async () => {
    const t = await permissionHost(project, { settingsFiles: false, lockTimeoutMs: 50 });
    project.write('.dsh/permission-grants.json.lock', `${process.pid}\n${(await import('node:os')).hostname()}\n`);
    await expect(t.perms.grants.add('project', ['Bash(make)'])).rejects.toMatchObject({ code: 'GRANTS_LOCK_TIMEOUT' });
    expect(() => readFileSync(grantsFile())).toThrow();
  });

  it('breaks a lock left by a process that is gone', async () => {
    const t = await permissionHost(project, { settingsFiles: false, lockTimeoutMs: 2000 });
    project.write('.dsh/permission-grants.json.lock', `999999999\n${(await import('node:os')).hostname()}\n`);
    await t.perms.grants.add('project', ['Bash(make)']);
    expect(JSON.parse(readFileSync(grantsFile(), 'utf8')).grants).toHaveLength(1);
  });

  it('breaks a lock whose owner died but was never reaped (a zombie), without waiting for it to go stale', async () => {
    const owner = await zombie();
    try {
      // Shorter than the 30 s after which any lock counts as stale: only seeing the zombie as dead takes it.
      const t = await permissionHost(project, { settingsFiles: false, lockTimeoutMs: 10_000 });
      project.write('.dsh/permission-grants.json.lock', `${owner.pid}\n${hostname()}\n`);
      await t.perms.grants.add('project', ['Bash(make)']);
      expect(JSON.parse(readFileSync(grantsFile(), 'utf8')).grants).toHaveLength(1);
    } finally {
      owner.reap();
    }
  });
});

/**
 * A zombie: a process forks a child that exits at once, prints its pid and sleeps without ever
 * waiting for it, so the child stays dead and unreaped. `reap` ends the sleeper; the zombie's new
 * parent then reaps it. (A shell that execs `sleep` would not do: it may reap the child first.)
 */
async function zombie(): Promise<{ pid: number; reap: () => void }> {
  const script = 'import os, sys, time\npid = os.fork()\nif pid == 0: os._exit(0)\nprint(pid, flush=True)\ntime.sleep(300)';
  const parent = spawn('python3', ['-c', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const reap = (): void => void parent.kill('SIGKILL');
  const [line] = (await once(parent.stdout, 'data')) as [Buffer];
  const pid = Number(line.toString().trim());
  const hangBound = Date.now() + 30_000;
  while (!readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ')) {
    if (Date.now() > hangBound) {
      reap();
      throw new Error(`process ${pid} did not become a zombie`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { pid, reap };
}

describe('two hosts writing grants to the same project file', () => {
  it('loses no grant', async () => {
    const remember = { answer: 'allowed-project' } as const;
    // A lock wait long enough for a loaded machine: a timed-out wait drops a grant by design.
    const a = await permissionHost(project, { settingsFiles: false, lockTimeoutMs: 60_000 }, remember);
    const b = await permissionHost(project, { settingsFiles: false, lockTimeoutMs: 60_000 }, remember);
    const runs = Array.from({ length: 12 }, (_, i) => [
      a.call('shell', { command: `echo a${i}` }),
      b.call('shell', { command: `echo b${i}` }),
    ]).flat();
    const outcomes = await Promise.all(runs);
    expect(outcomes.every((o) => o.status === 'ok')).toBe(true);
    const stored = JSON.parse(readFileSync(grantsFile(), 'utf8'));
    expect(stored.grants).toHaveLength(24);
    expect(new Set(stored.grants.map((g: { rules: string[] }) => g.rules[0])).size).toBe(24);
    expect(await a.perms.grants.list()).toHaveLength(24);
    expect((await b.call('shell', { command: 'echo a3' })).status).toBe('ok');
    expect(b.prompts).toHaveLength(12);
    writeFileSync(grantsFile(), JSON.stringify({ version: 1, grants: [] }));
    expect((await b.call('shell', { command: 'echo a3' })).status).toBe('ok');
    expect(b.prompts).toHaveLength(13);
  });
});

describe('two processes writing grants to the same project file', () => {
  it('loses no grant', async () => {
    const dist = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    expect(existsSync(dist), 'build the package first: npx tsc -b packages/permissions').toBe(true);
    const writer = fileURLToPath(new URL('./fixtures/grant-writer.mjs', import.meta.url));
    const run = promisify(execFile);
    await Promise.all(['p', 'q', 'r'].map((label) => run(process.execPath, [writer, dist, grantsFile(), project.dir, label, '15'])));
    const stored = JSON.parse(readFileSync(grantsFile(), 'utf8'));
    expect(stored.grants).toHaveLength(45);
    expect(new Set(stored.grants.map((g: { rules: string[] }) => g.rules[0])).size).toBe(45);
    expect(existsSync(`${grantsFile()}.lock`)).toBe(false);
  });
});
