import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Outcome } from '@deepseek-ai/dsh-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { permissionHost } from './fixtures/hosts.js';
import { makeProject, type Project } from './fixtures/project.js';

let project: Project;
beforeEach(() => {
  project = makeProject();
  project.write('src/a.ts', 'export const a = 1;\n');
});
afterEach(() => project.dispose());

function status(outcome: Outcome): string {
  return outcome.status === 'denied' ? `denied:${outcome.stage}` : outcome.status;
}

describe('default mode', () => {
  it('runs reads inside the workspace and asks for reads outside it, commands and edits', async () => {
    const t = await permissionHost(project, { settingsFiles: false });
    const inside = await t.call('read_file', { path: join(project.dir, 'src/a.ts') });
    expect(inside.status).toBe('ok');
    const outsideFile = project.write(join(project.root, 'elsewhere.txt'), 'x');
    expect(status(await t.call('read_file', { path: outsideFile }))).toBe('denied:approval');
    expect(status(await t.call('shell', { command: 'ls' }))).toBe('denied:approval');
    expect(status(await t.call('edit_file', { path: join(project.dir, 'src/a.ts'), old: '1', new: '2' }))).toBe('denied:approval');
    expect(t.prompts.map((p) => p.tool.name)).toEqual(['read_file', 'shell', 'edit_file']);
    expect(t.prompts[1]?.reason).toMatch(/permissions \(mode default\): no allow rule covers "ls"/);
  });

  it('asks for a read that leaves the workspace through a link, a linked folder or ..', async () => {
    const outsideFile = project.write(join(project.root, 'outside/secret.txt'), 'x');
    symlinkSync(outsideFile, join(project.dir, 'src/innocent.txt'));
    symlinkSync(join(project.root, 'outside'), join(project.dir, 'src/vendor'));
    const t = await permissionHost(project, { settingsFiles: false });
    expect(status(await t.call('read_file', { path: join(project.dir, 'src/innocent.txt') }))).toBe('denied:approval');
    expect(status(await t.call('read_file', { path: join(project.dir, 'src/vendor/secret.txt') }))).toBe('denied:approval');
    expect(status(await t.call('read_file', { path: `${project.dir}/src/../../outside/secret.txt` }))).toBe('denied:approval');
    expect(t.prompts.map((p) => p.reason)).toEqual(Array(3).fill(expect.stringMatching(/reaches outside the workspace/)));
    // A link that stays inside reads without asking.
    symlinkSync(join(project.dir, 'src/a.ts'), join(project.dir, 'src/alias.ts'));
    expect((await t.call('read_file', { path: join(project.dir, 'src/alias.ts') })).status).toBe('ok');
    expect(t.prompts).toHaveLength(3);
  });

  it('runs what an allow rule covers without asking', async () => {
    const t = await permissionHost(project, { settingsFiles: false, rules: { allow: ['Bash(ls *)'] } });
    expect((await t.call('shell', { command: 'ls -la' })).status).toBe('ok');
    expect(t.prompts).toHaveLength(0);
  });
});

describe('acceptEdits mode', () => {
  it('runs edits inside the workspace and still asks for edits outside it and for commands', async () => {
    const t = await permissionHost(project, { settingsFiles: false, mode: 'acceptEdits' });
    expect((await t.call('edit_file', { path: join(project.dir, 'src/a.ts'), old: '1', new: '2' })).status).toBe('ok');
    const outsideFile = project.write(join(project.root, 'elsewhere.txt'), 'x');
    expect(status(await t.call('write_file', { path: outsideFile, content: 'y' }))).toBe('denied:approval');
    expect(status(await t.call('shell', { command: 'ls' }))).toBe('denied:approval');
  });

  it('does not accept an edit through a symlink that leads out of the workspace', async () => {
    const target = project.write(join(project.root, 'outside.txt'), 'x');
    symlinkSync(target, join(project.dir, 'src/escape.txt'));
    const t = await permissionHost(project, { settingsFiles: false, mode: 'acceptEdits' });
    expect(status(await t.call('write_file', { path: join(project.dir, 'src/escape.txt'), content: 'pwned' }))).toBe('denied:approval');
  });
});

describe('plan mode', () => {
  it('runs reads, denies edits and commands even when allowed, and asks for fetches', async () => {
    const t = await permissionHost(project, { settingsFiles: false, mode: 'plan', rules: { allow: ['Bash(ls *)', 'Edit'] } });
    expect((await t.call('read_file', { path: join(project.dir, 'src/a.ts') })).status).toBe('ok');
    const edit = await t.call('edit_file', { path: join(project.dir, 'src/a.ts'), old: '1', new: '2' });
    expect(status(edit)).toBe('denied:pre-execute');
    expect(edit.status === 'denied' && edit.reason).toMatch(/plan mode runs nothing that may change files/);
    expect(status(await t.call('shell', { command: 'ls' }))).toBe('denied:pre-execute');
    expect(status(await t.call('fetch', { url: 'https://example.com' }))).toBe('denied:approval');
    expect(t.ran.calls.map((c) => c.tool)).toEqual(['read_file']);
  });

  it('runs a tool named read-only in the options', async () => {
    const t = await permissionHost(project, { settingsFiles: false, mode: 'plan', readOnlyTools: ['todo'], rules: { allow: ['todo'] } });
    expect((await t.call('todo', { text: 'x' })).status).toBe('ok');
  });
});

describe('bypassPermissions mode', () => {
  it('runs anything, but deny rules still deny and ask rules still ask', async () => {
    const t = await permissionHost(project, {
      settingsFiles: false,
      mode: 'bypassPermissions',
      rules: { deny: ['Bash(rm *)'], ask: ['Bash(git push *)'] },
    });
    expect((await t.call('shell', { command: 'make build' })).status).toBe('ok');
    const rm = await t.call('shell', { command: 'make && rm -rf ~' });
    expect(status(rm)).toBe('denied:pre-execute');
    expect(rm.status === 'denied' && rm.reason).toMatch(/mode bypassPermissions.*deny rule "Bash\(rm \*\)" from options/);
    expect(status(await t.call('shell', { command: 'git push origin main' }))).toBe('denied:approval');
  });

  it('asks for a line it cannot read when deny rules name Bash, so they cannot be dodged', async () => {
    const t = await permissionHost(project, { settingsFiles: false, mode: 'bypassPermissions', rules: { deny: ['Bash(rm *)'] } });
    const dodge = await t.call('shell', { command: `${'eval '.repeat(12)}rm -rf ~` });
    expect(status(dodge)).toBe('denied:approval');
    expect(t.prompts[0]?.reason).toMatch(/cannot be fully read/);
    expect(status(await t.call('shell', { command: 'X=rm; $X -rf ~' }))).toBe('denied:approval');
  });
});

describe('dontAsk mode', () => {
  it('denies whatever it would ask and runs what rules allow', async () => {
    const t = await permissionHost(project, {
      settingsFiles: false,
      mode: 'dontAsk',
      rules: { allow: ['Bash(ls *)'], ask: ['Bash(ls -R *)'] },
    });
    expect((await t.call('shell', { command: 'ls -la' })).status).toBe('ok');
    const unlisted = await t.call('shell', { command: 'make' });
    expect(status(unlisted)).toBe('denied:pre-execute');
    expect(unlisted.status === 'denied' && unlisted.reason).toMatch(/mode dontAsk.*dontAsk denies what it would ask/);
    expect(status(await t.call('shell', { command: 'ls -R /' }))).toBe('denied:pre-execute');
    expect((await t.call('read_file', { path: join(project.dir, 'src/a.ts') })).status).toBe('ok');
    expect(t.prompts).toHaveLength(0);
  });
});

describe('switching modes', () => {
  it('takes effect on the next call and shows in the reason', async () => {
    const t = await permissionHost(project, { settingsFiles: false });
    expect(t.perms.mode()).toBe('default');
    t.perms.setMode('plan');
    const outcome = await t.call('shell', { command: 'ls' });
    expect(outcome.status === 'denied' && outcome.reason).toMatch(/\(mode plan\)/);
    expect(() => t.perms.setMode('yolo' as never)).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
  });
});
