import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { permissionHost } from './fixtures/hosts.js';
import { makeProject, type Project } from './fixtures/project.js';
import { permissions } from './plugin.js';

let project: Project;
beforeEach(() => {
  project = makeProject();
});
afterEach(() => project.dispose());

describe('rules from settings files', () => {
  it('lets deny beat ask beat allow across user, project and local files', async () => {
    project.settings('user', { allow: ['Bash(git *)'], deny: ['Bash(git push --force *)'] });
    project.settings('project', { ask: ['Bash(git push *)'] });
    project.settings('local', { allow: ['Bash(git push *)'] });
    const t = await permissionHost(project);
    expect((await t.call('shell', { command: 'git status' })).status).toBe('ok');
    const push = await t.call('shell', { command: 'git push origin main' });
    expect(push).toMatchObject({ status: 'denied', stage: 'approval' });
    expect(t.prompts[0]?.reason).toBe(
      'permissions (mode default): approval required by ask rule "Bash(git push *)" from .claude/settings.json:4 (matched "git push origin main")',
    );
    const force = await t.call('shell', { command: 'git push --force origin main' });
    expect(force).toMatchObject({ status: 'denied', stage: 'pre-execute' });
    expect(force.status === 'denied' && force.reason).toContain('deny rule "Bash(git push --force *)" from ~/.claude/settings.json:7');
  });

  it('records which file and line decided each call', async () => {
    project.settings('project', { allow: ['Bash(npm test)', 'Bash(npm run *)'] });
    const t = await permissionHost(project);
    await t.call('shell', { command: 'npm test && npm run lint' });
    const decision = t.host.events.list().find((e) => e.type === 'permissions/decision');
    expect(decision?.data).toMatchObject({
      tool: 'shell',
      decision: 'allow',
      mode: 'default',
      by: [
        { kind: 'rule', list: 'allow', rule: 'Bash(npm test)', source: '.claude/settings.json', line: 4 },
        { kind: 'rule', list: 'allow', rule: 'Bash(npm run *)', source: '.claude/settings.json', line: 5 },
      ],
    });
  });

  it('reports a rule that cannot be parsed by file, line and rule, and keeps the others', async () => {
    project.settings('project', { deny: ['Bash(rm *)', 'Bash(', 'Fetch*', 42] });
    const t = await permissionHost(project);
    const problems = t.perms.problems();
    expect(problems.map((p) => [p.code, p.line, p.rule])).toEqual([
      ['INVALID_RULE', 5, 'Bash('],
      ['INVALID_RULE', 6, 'Fetch*'],
      ['INVALID_RULE', 7, '42'],
    ]);
    expect(problems[0]?.message).toMatch(/^\.claude\/settings\.json:5: invalid permission rule "Bash\(": .*the other rules still apply$/);
    expect(problems[0]?.file).toBe(join(project.dir, '.claude', 'settings.json'));
    expect(await t.call('shell', { command: 'rm -rf ~' })).toMatchObject({ status: 'denied', stage: 'pre-execute' });
    const logged = t.host.events.list().filter((e) => e.type === 'permissions/problem');
    expect(logged).toHaveLength(3);
  });

  it('takes an empty settings file for no settings, as the bash sandbox leaves one while a command runs', async () => {
    project.settings('user', { deny: ['Bash(rm *)'] });
    project.write('.claude/settings.local.json', '');
    const t = await permissionHost(project);
    expect(t.perms.problems()).toEqual([]);
    expect(await t.call('shell', { command: 'rm x' })).toMatchObject({ status: 'denied', stage: 'pre-execute' });
  });

  it('reports a file that is not JSON and still applies the other files', async () => {
    project.settings('user', { deny: ['Bash(rm *)'] });
    project.write('.claude/settings.json', '{ "permissions": { "allow": [ "Bash" ] ');
    const t = await permissionHost(project);
    expect(t.perms.problems()).toEqual([
      expect.objectContaining({
        code: 'INVALID_SETTINGS',
        message: expect.stringMatching(/^\.claude\/settings\.json:1:40: not valid JSON \(.+\); none of its rules apply$/),
      }),
    ]);
    expect(await t.call('shell', { command: 'rm x' })).toMatchObject({ status: 'denied', stage: 'pre-execute' });
  });

  it('reports permissions blocks and lists of the wrong shape', async () => {
    project.settings('project', { allow: 'Bash', defaultMode: 'yolo' });
    project.write(join(project.home, '.claude', 'settings.json'), JSON.stringify({ permissions: ['Bash'] }));
    const t = await permissionHost(project);
    expect(t.perms.problems().map((p) => p.message)).toEqual([
      '~/.claude/settings.json: "permissions" must be an object',
      '.claude/settings.json: "permissions.allow" must be an array of rules',
      expect.stringContaining('.claude/settings.json: "permissions.defaultMode" "yolo" is not one of'),
    ]);
  });

  it('reports rules given in code by their place in the options', async () => {
    const t = await permissionHost(project, { settingsFiles: false, rules: { deny: ['Bash(rm *)', 'Bash()'] } });
    expect(t.perms.problems()).toEqual([
      expect.objectContaining({ code: 'INVALID_RULE', rule: 'Bash()', message: expect.stringMatching(/^options\.rules\.deny\[1\]: /) }),
    ]);
  });

  it('fails registration on any problem when strict', async () => {
    project.settings('project', { deny: ['Bash('] });
    const { createTestHost } = await import('@deepseek-ai/dsh-core/testing');
    await expect(
      createTestHost({ plugins: [permissions({ projectDir: project.dir, homeDir: project.home, strict: true })] }),
    ).rejects.toThrow(/PLUGIN_REGISTER_FAILED|invalid permission rule "Bash\("/);
  });

  it('takes defaultMode from the highest file that sets it, and the mode option over all files', async () => {
    project.settings('user', { defaultMode: 'plan' });
    project.settings('local', { defaultMode: 'acceptEdits' });
    expect((await permissionHost(project)).perms.mode()).toBe('acceptEdits');
    expect((await permissionHost(project, { mode: 'dontAsk' })).perms.mode()).toBe('dontAsk');
  });

  it('refuses bypassPermissions when a settings file disables it', async () => {
    project.settings('project', { disableBypassPermissionsMode: 'disable' });
    const t = await permissionHost(project, { mode: 'bypassPermissions' });
    expect(t.perms.mode()).toBe('default');
    expect(t.perms.problems()[0]?.code).toBe('BYPASS_DISABLED');
    expect(() => t.perms.setMode('bypassPermissions')).toThrow(expect.objectContaining({ code: 'BYPASS_DISABLED' }));
  });

  it('treats additionalDirectories as workspace for reads', async () => {
    const shared = project.write(join(project.root, 'shared', 'notes.md'), 'x');
    project.settings('project', { additionalDirectories: ['../shared'] });
    const t = await permissionHost(project);
    expect((await t.call('read_file', { path: shared })).status).toBe('ok');
  });

  it('picks up edited settings on reload', async () => {
    const file = project.settings('project', { allow: [] });
    const t = await permissionHost(project);
    expect((await t.call('shell', { command: 'make' })).status).toBe('denied');
    writeFileSync(file, JSON.stringify({ permissions: { allow: ['Bash(make)'], defaultMode: 'plan' } }));
    t.perms.setMode('acceptEdits');
    await t.perms.reload();
    expect((await t.call('shell', { command: 'make' })).status).toBe('ok');
    expect(t.perms.rules().map((r) => r.rule.text)).toEqual(['Bash(make)']);
    expect(t.perms.mode()).toBe('acceptEdits');
  });
});
