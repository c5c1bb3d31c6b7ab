import { readFileSync, symlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { HostOptions, Plugin } from '@deepseek-ai/dsh-core';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeProject, type Project } from './fixtures/project.js';
import { permissions } from './index.js';

/*
 * Issue 35 item 1: permissions anchored at the project, the file tools one
 * folder above it. A relative read of project/secrets/key was allowed and
 * returned the secret while the absolute path was denied: each plugin
 * resolved the path against its own folder. Now the tool resolves it once,
 * before the rules see it, so every spelling gets the absolute path's verdict.
 */

let project: Project;
beforeEach(() => {
  project = makeProject();
  project.write('secrets/key', 'hunter2\n');
  project.write('open/notes.md', 'hello\n');
  // A link one folder above the project, where the session's folder is.
  symlinkSync(join(project.dir, 'secrets'), join(project.root, 'vault'));
});
afterEach(() => project.dispose());

const rules = { deny: ['Read(./secrets/**)', 'Edit(./secrets/**)'] };

/** The option styles that name the session's folder, with the host in the folder above the project. */
const styles: Record<string, (p: Project) => { host: HostOptions; plugins: Plugin[] }> = {
  // The set-up: the README's toolFs({ roots: [process.cwd()] }) beside permissions({ projectDir }).
  'permissions({ projectDir }), toolFs({ roots })': (p) => ({
    host: { cwd: p.root, homeDir: p.dir },
    plugins: [toolFs({ roots: [p.root] }), permissions({ projectDir: p.dir, settingsFiles: false, mode: 'acceptEdits', rules })],
  }),
  'permissions({ projectDir, cwd }), toolFs({ cwd })': (p) => ({
    host: { homeDir: p.dir },
    plugins: [toolFs({ cwd: p.root }), permissions({ projectDir: p.dir, cwd: p.dir, settingsFiles: false, mode: 'acceptEdits', rules })],
  }),
  'createHost({ cwd, projectDir }), permissions(), toolFs()': (p) => ({
    host: { cwd: p.root, projectDir: p.dir, homeDir: p.dir },
    plugins: [
      toolFs(),
      permissions({ settingsFiles: false, mode: 'acceptEdits', rules: { deny: ['Read(/secrets/**)', 'Edit(/secrets/**)'] } }),
    ],
  }),
};

/** The secret file and its folder, spelled every way, from the folder above the project (home is the project). */
function spellings(p: Project) {
  const up = `../${basename(p.root)}`;
  return {
    relative: { file: 'project/secrets/key', dir: 'project/secrets' },
    'dot-slash': { file: './project/secrets/key', dir: './project/secrets' },
    'dot-dot': { file: `${up}/project/secrets/key`, dir: `${up}/project/secrets` },
    home: { file: '~/secrets/key', dir: '~/secrets' },
    symlinked: { file: 'vault/key', dir: 'vault' },
    absolute: { file: join(p.dir, 'secrets/key'), dir: join(p.dir, 'secrets') },
  };
}

const tools: readonly { name: string; target: 'file' | 'dir'; args: (p: string) => Record<string, unknown> }[] = [
  { name: 'read', target: 'file', args: (p) => ({ file_path: p }) },
  { name: 'write', target: 'file', args: (p) => ({ file_path: p, content: 'pwned\n' }) },
  { name: 'edit', target: 'file', args: (p) => ({ file_path: p, old_string: 'hunter2', new_string: 'pwned' }) },
  { name: 'multi_edit', target: 'file', args: (p) => ({ file_path: p, edits: [{ old_string: 'hunter2', new_string: 'pwned' }] }) },
  { name: 'list', target: 'dir', args: (p) => ({ path: p }) },
  { name: 'glob', target: 'dir', args: (p) => ({ path: p, pattern: '*' }) },
  { name: 'grep', target: 'dir', args: (p) => ({ path: p, pattern: 'hunter2', output_mode: 'content' }) },
];

describe('one resolution of every path (issue 35 item 1)', () => {
  for (const [style, setUp] of Object.entries(styles)) {
    it(`denies every file tool the secret, however spelled, with ${style}`, async () => {
      const { host, plugins } = setUp(project);
      const t = await createTestHost({ ...host, plugins });
      // The control: the same tools reach a file the rules do not cover, so a denial below is the rules'.
      expect((await t.call('read', { file_path: 'project/open/notes.md' })).status).toBe('ok');
      expect((await t.call('list', { path: 'project/open' })).status).toBe('ok');
      for (const tool of tools) {
        for (const [spelling, p] of Object.entries(spellings(project))) {
          const outcome = await t.call(tool.name, tool.args(p[tool.target]));
          expect(outcome, `${tool.name} ${spelling}`).toMatchObject({ status: 'denied', stage: 'pre-execute', by: 'permissions' });
        }
      }
      expect(readFileSync(join(project.dir, 'secrets/key'), 'utf8')).toBe('hunter2\n');
    });
  }

  it('logs the absolute path the rules judged as the effective args of the call', async () => {
    const { host, plugins } = (styles['permissions({ projectDir }), toolFs({ roots })'] as (typeof styles)[string])(project);
    const t = await createTestHost({ ...host, plugins });
    await t.call('read', { file_path: 'project/secrets/key' });
    const decision = t.host.events.list().find((e) => e.type === 'permissions/decision');
    expect(decision?.data).toMatchObject({ decision: 'deny', by: [{ kind: 'rule', rule: 'Read(./secrets/**)' }] });
    const result = t.host.events.list().find((e) => e.type === 'tool/result');
    expect(result?.data).toMatchObject({ args: { file_path: join(project.dir, 'secrets/key') } });
  });
});

describe('the anchors permissions takes', () => {
  it('are the host’s when the options name none', async () => {
    const perms = permissions({ settingsFiles: false, rules: { deny: ['Read(./secrets/**)'] } });
    await createTestHost({ cwd: project.dir, homeDir: project.home, plugins: [toolFs(), perms] });
    expect(perms.check('read', { file_path: join(project.dir, 'secrets/key') })).toMatchObject({ decision: 'deny' });
  });

  it('are the options’ when they name one, whatever the host says', async () => {
    const perms = permissions({ cwd: project.home, settingsFiles: false, rules: { deny: ['Read(./secrets/**)'] } });
    await createTestHost({ cwd: project.dir, plugins: [toolFs(), perms] });
    expect(perms.check('read', { file_path: join(project.dir, 'secrets/key') }).decision).not.toBe('deny');
    expect(perms.check('read', { file_path: join(project.home, 'secrets/key') })).toMatchObject({ decision: 'deny' });
  });
});
