import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { toolBash } from '@deepseek-ai/dsh-tool-bash';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeProject, type Project } from './fixtures/project.js';
import { type PermissionPromptReply, type PermissionPromptRequest, type PermissionsOptions, permissions } from './index.js';

let project: Project;
beforeEach(() => {
  project = makeProject();
  project.write('src/a.ts', 'export const a = 1;\n');
  project.write('secret/key.txt', 'hunter2\n');
});
afterEach(() => project.dispose());

/** A host with the real bash and file tools, governed by permissions. */
async function realHost(options: PermissionsOptions, answer: PermissionPromptReply = 'rejected') {
  const perms = permissions({ projectDir: project.dir, homeDir: project.home, settingsFiles: false, ...options });
  const prompts: PermissionPromptRequest[] = [];
  const t = await createTestHost({
    plugins: [toolBash({ cwd: project.dir, sandbox: { provider: 'none' } }), toolFs({ cwd: project.dir }), perms],
    approval: perms.approval((request) => {
      prompts.push(request);
      return answer;
    }),
  });
  return { ...t, perms, prompts };
}

describe('with the real bash and file tools', () => {
  it('finds both tools by their Claude Code names', async () => {
    const t = await realHost({});
    expect(t.host.tools.findExternal('claude', 'Bash')?.name).toBe('bash');
    expect(t.host.tools.findExternal('claude', 'Read')?.name).toBe('read');
  });

  it('runs an allowed command and refuses the rm hidden behind it', async () => {
    const t = await realHost({ rules: { allow: ['Bash(echo *)', 'Bash(touch *)'], deny: ['Bash(rm *)'] } });
    expect((await t.call('bash', { command: 'echo hi > made.txt' })).status).toBe('denied');
    expect((await t.call('bash', { command: 'touch made.txt' })).status).toBe('ok');
    expect(existsSync(join(project.dir, 'made.txt'))).toBe(true);
    const hidden = await t.call('bash', { command: 'echo ok; $(echo rm) -f made.txt && echo "$(rm -f made.txt)"' });
    expect(hidden).toMatchObject({ status: 'denied', stage: 'pre-execute' });
    expect(existsSync(join(project.dir, 'made.txt'))).toBe(true);
  });

  it('asks before a command that only partly matches an allow rule, and runs nothing when refused', async () => {
    const t = await realHost({ rules: { allow: ['Bash(echo *)'] } });
    expect(await t.call('bash', { command: 'echo x && touch pwned' })).toMatchObject({ status: 'denied', stage: 'approval' });
    expect(existsSync(join(project.dir, 'pwned'))).toBe(false);
    expect(t.prompts[0]?.decision?.uncovered).toEqual(['touch pwned']);
    expect(t.prompts[0]?.remember.suggestions[0]?.rules).toEqual(['Bash(touch pwned)']);
  });

  it('remembers a real command for the session', async () => {
    const t = await realHost({}, { answer: 'allowed-session' });
    expect((await t.call('bash', { command: 'touch one' })).status).toBe('ok');
    expect((await t.call('bash', { command: 'touch one' })).status).toBe('ok');
    expect(t.prompts).toHaveLength(1);
  });

  it('lets reads in the workspace run, and denies reads and edits of denied paths', async () => {
    const t = await realHost({ rules: { deny: ['Read(./secret/**)', 'Edit(/src/**)'] } });
    expect((await t.call('read', { file_path: join(project.dir, 'src/a.ts') })).status).toBe('ok');
    expect(await t.call('read', { file_path: join(project.dir, 'secret/key.txt') })).toMatchObject({
      status: 'denied',
      stage: 'pre-execute',
    });
    expect(await t.call('write', { file_path: join(project.dir, 'src/b.ts'), content: 'x' })).toMatchObject({
      status: 'denied',
      stage: 'pre-execute',
    });
    expect(existsSync(join(project.dir, 'src/b.ts'))).toBe(false);
  });

  it('denies a read through a symlink into a denied directory', async () => {
    symlinkSync(join(project.dir, 'secret/key.txt'), join(project.dir, 'src/innocent.txt'));
    const t = await realHost({ rules: { deny: ['Read(./secret/**)'] } });
    expect(await t.call('read', { file_path: join(project.dir, 'src/innocent.txt') })).toMatchObject({
      status: 'denied',
      stage: 'pre-execute',
    });
  });

  it('lets acceptEdits write in the workspace and plan mode write nothing', async () => {
    const t = await realHost({ mode: 'acceptEdits' });
    expect((await t.call('write', { file_path: join(project.dir, 'src/new.ts'), content: 'x' })).status).toBe('ok');
    expect(readFileSync(join(project.dir, 'src/new.ts'), 'utf8')).toBe('x');
    t.perms.setMode('plan');
    expect(await t.call('write', { file_path: join(project.dir, 'src/new2.ts'), content: 'x' })).toMatchObject({
      status: 'denied',
      stage: 'pre-execute',
    });
    expect(await t.call('bash', { command: 'touch x' })).toMatchObject({ status: 'denied', stage: 'pre-execute' });
    expect((await t.call('glob', { pattern: '**/*.ts' })).status).toBe('ok');
  });
});
