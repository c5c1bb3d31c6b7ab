import { mkdir, readFile, rename, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Plugin } from '@deepseek-ai/dsh-core';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf, type Scratch, scratch } from './fixtures/workspace.js';
import { toolFs } from './plugin.js';

/*
 * Invariant 14 (issue 35 item 1): a file tool's path is resolved once, before
 * any policy sees the call, and the pre-execute taps, the approval, the guards
 * and the body all get that one absolute real path, whichever way the model
 * spelled it and whichever way the plugin was configured.
 */

let s: Scratch;
let file: string;
let dir: string;
beforeEach(async () => {
  s = await scratch();
  dir = path.join(s.ws, 'notes');
  file = path.join(dir, 'file.md');
  await mkdir(dir);
  await writeFile(file, 'alpha\n');
  await symlink('notes/file.md', path.join(s.ws, 'link.md'));
  await symlink('notes', path.join(s.ws, 'linkdir'));
});
afterEach(() => s.cleanup());

/** One file (and its directory) spelled every way a model might. */
function spellings(ws: string) {
  return {
    relative: { file: 'notes/file.md', dir: 'notes' },
    'dot-slash': { file: './notes/file.md', dir: './notes' },
    'dot-dot': { file: `../${path.basename(ws)}/notes/file.md`, dir: `../${path.basename(ws)}/notes` },
    home: { file: '~/notes/file.md', dir: '~/notes' },
    symlinked: { file: 'link.md', dir: 'linkdir' },
    absolute: { file: path.join(ws, 'notes', 'file.md'), dir: path.join(ws, 'notes') },
  } as const;
}

/**
 * The three ways the READMEs configured the folder before hosts had one
 * (roots only, with the process's cwd; cwd only; roots, cwd and read-only
 * roots), and the host's own working directory. `~` is the workspace.
 */
const styles: Record<string, (ws: string, docs: string) => { host: { cwd?: string; homeDir: string }; plugin: Plugin }> = {
  'host cwd, toolFs()': (ws) => ({ host: { cwd: ws, homeDir: ws }, plugin: toolFs({ readBeforeEdit: false }) }),
  'toolFs({ roots })': (ws) => ({ host: { cwd: ws, homeDir: ws }, plugin: toolFs({ roots: [ws], readBeforeEdit: false }) }),
  'toolFs({ cwd })': (ws) => ({ host: { homeDir: ws }, plugin: toolFs({ cwd: ws, readBeforeEdit: false }) }),
  'toolFs({ roots, cwd, readOnlyRoots })': (ws, docs) => ({
    host: { homeDir: ws },
    plugin: toolFs({ roots: [ws], cwd: ws, readOnlyRoots: [docs], readBeforeEdit: false }),
  }),
};

/** Each file tool, the arguments that make it touch `p`, and whether `p` is the file or its directory. */
const tools: readonly { name: string; target: 'file' | 'dir'; key: string; args: (p: string) => Record<string, unknown> }[] = [
  { name: 'read', target: 'file', key: 'file_path', args: (p) => ({ file_path: p }) },
  { name: 'write', target: 'file', key: 'file_path', args: (p) => ({ file_path: p, content: 'alpha\n' }) },
  { name: 'edit', target: 'file', key: 'file_path', args: (p) => ({ file_path: p, old_string: 'alpha', new_string: 'beta' }) },
  {
    name: 'multi_edit',
    target: 'file',
    key: 'file_path',
    args: (p) => ({ file_path: p, edits: [{ old_string: 'alpha', new_string: 'beta' }] }),
  },
  { name: 'list', target: 'dir', key: 'path', args: (p) => ({ path: p }) },
  { name: 'glob', target: 'dir', key: 'path', args: (p) => ({ path: p, pattern: '*.md' }) },
  { name: 'grep', target: 'dir', key: 'path', args: (p) => ({ path: p, pattern: 'alpha|beta' }) },
];

/** A host whose every policy stage, and the args the body gets, record the tool's path argument. */
async function recordingHost(style: keyof typeof styles, key: string) {
  const docs = path.join(s.base, 'docs');
  await mkdir(docs, { recursive: true });
  const { host, plugin } = (styles[style] as (typeof styles)[string])(s.ws, docs);
  const seen: string[] = [];
  const t = await createTestHost({
    ...host,
    defaultDecision: 'ask',
    approval: (request) => {
      seen.push(`approval ${String(request.args[key])}`);
      return 'allowed-once';
    },
    plugins: [plugin],
  });
  t.host.hooks.preExecute.tap('policy', (state) => {
    seen.push(`pre-execute ${String(state.args[key])}`);
  });
  t.host.guards.register({
    id: 'guard',
    check: (input) => {
      seen.push(`guard ${String(input.args[key])}`);
      return 'abstain';
    },
  });
  t.host.hooks.execute.tap('body', (ctx, next) => {
    seen.push(`body ${String(ctx.args[key])}`);
    return next();
  });
  return { t, seen };
}

describe('every file tool sees one resolved path at every stage (invariant 14)', () => {
  for (const style of Object.keys(styles)) {
    for (const tool of tools) {
      it(`${tool.name}, configured as ${style}: policies and body get the real path for every spelling`, async () => {
        const { t, seen } = await recordingHost(style, tool.key);
        const want = tool.target === 'file' ? file : dir;
        for (const [spelling, p] of Object.entries(spellings(s.ws))) {
          await writeFile(file, 'alpha\n');
          seen.length = 0;
          const outcome = await t.call(tool.name, tool.args(p[tool.target]));
          expect(outcome.status, `${spelling}: ${JSON.stringify(outcome)}`).toBe('ok');
          expect(seen, spelling).toEqual([`pre-execute ${want}`, `approval ${want}`, `guard ${want}`, `body ${want}`]);
        }
      });
    }
  }
});

describe('a path changed after the policies judged it', () => {
  it('is refused with FS_PATH_CHANGED, and the file it now leads to is left as it was', async () => {
    const other = path.join(s.ws, 'other');
    await mkdir(other);
    await writeFile(path.join(other, 'file.md'), 'other\n');
    const t = await createTestHost({ cwd: s.ws, plugins: [toolFs({ readBeforeEdit: false })] });
    // After the policies judged notes/file.md, notes becomes a link to other/.
    t.host.guards.register({
      id: 'swap',
      check: async () => {
        await rename(dir, path.join(s.ws, 'moved'));
        await symlink('other', dir);
        return 'abstain' as const;
      },
    });
    const outcome = await t.call('write', { file_path: 'notes/file.md', content: 'overwritten\n' });
    expect(errorOf(outcome)).toMatchObject({ code: 'FS_PATH_CHANGED', data: { path: file, now: path.join(other, 'file.md') } });
    expect(await readFile(path.join(other, 'file.md'), 'utf8')).toBe('other\n');
  });
});

describe('paths the workspace refuses', () => {
  it('reach the policies as given (hooks and replays see every call) and the body refuses them with its own code', async () => {
    const t = await createTestHost({ cwd: s.ws, plugins: [toolFs()] });
    const asked: string[] = [];
    t.host.hooks.preExecute.tap('policy', (state) => {
      asked.push(String(state.args.file_path));
    });
    expect(await t.call('read', { file_path: '../outside/x' })).toMatchObject({
      status: 'error',
      stage: 'execute',
      error: { code: 'FS_PATH_TRAVERSAL' },
    });
    expect(asked).toEqual(['../outside/x']);
  });

  it('are refused with FS_PATH_CHANGED if they resolve inside the roots by the time the body runs', async () => {
    await symlink(s.outside, path.join(s.ws, 'flip'));
    const t = await createTestHost({ cwd: s.ws, plugins: [toolFs({ readBeforeEdit: false })] });
    // After the policies saw "flip/file.md" (refused then: the link led out), it is pointed inside.
    t.host.guards.register({
      id: 'flip',
      check: async () => {
        await unlink(path.join(s.ws, 'flip'));
        await symlink('notes', path.join(s.ws, 'flip'));
        return 'abstain' as const;
      },
    });
    const outcome = await t.call('write', { file_path: 'flip/file.md', content: 'overwritten\n' });
    expect(errorOf(outcome)).toMatchObject({ code: 'FS_PATH_CHANGED', data: { path: 'flip/file.md', now: file } });
    expect(await readFile(file, 'utf8')).toBe('alpha\n');
  });

  it('refuse a pre-execute rewrite that leads out of the roots, in the body, with the tool’s own code', async () => {
    const t = await createTestHost({ cwd: s.ws, plugins: [toolFs()] });
    t.host.hooks.preExecute.tap('rewriter', (state) => ({ args: { ...state.args, file_path: '/etc/hostname' } }));
    expect(errorOf(await t.call('read', { file_path: 'notes/file.md' }))).toMatchObject({ code: 'FS_PATH_OUTSIDE_ROOTS' });
  });

  it('resolve a rewritten relative path before the guard and the body see it', async () => {
    const t = await createTestHost({ cwd: s.ws, plugins: [toolFs()] });
    t.host.hooks.preExecute.tap('rewriter', (state) => ({ args: { ...state.args, file_path: 'link.md' } }));
    const guarded: string[] = [];
    t.host.guards.register({
      id: 'guard',
      check: (input) => {
        guarded.push(String(input.args.file_path));
        return 'abstain';
      },
    });
    expect(await t.call('read', { file_path: 'elsewhere.md' })).toMatchObject({ status: 'ok', output: { path: file } });
    expect(guarded).toEqual([file]);
  });
});
