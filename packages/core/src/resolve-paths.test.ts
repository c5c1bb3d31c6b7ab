import { homedir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorPath, createHost, DshError, defineTool, type SessionAnchors, ToolError, z } from './index.js';
import { createTestHost } from './testing/index.js';

const cwd = '/srv/session/work';
const home = '/srv/home';

/** A tool taking one path, resolved lexically against the anchors it is handed; it records what each stage saw. */
function pathTool(seen: string[], resolvePaths?: (args: Readonly<Record<string, unknown>>, anchors: SessionAnchors) => unknown) {
  return defineTool({
    name: 'open',
    description: 'Opens a file.',
    input: z.object({ file_path: z.string().min(1), mode: z.enum(['r', 'w']).default('r') }),
    execute: (args) => {
      seen.push(`body ${args.file_path}`);
      return args.file_path;
    },
    resolvePaths:
      (resolvePaths as never) ??
      ((args, anchors) => (typeof args.file_path === 'string' ? { ...args, file_path: anchorPath(args.file_path, anchors) } : args)),
  });
}

async function hostWith(seen: string[], resolvePaths?: Parameters<typeof pathTool>[1]) {
  const t = await createTestHost({
    cwd,
    homeDir: home,
    approval: (request) => {
      seen.push(`approval ${String(request.args.file_path)}`);
      return 'allowed-once';
    },
  });
  t.host.tools.register(pathTool(seen, resolvePaths));
  t.host.hooks.preExecute.tap('policy', (state) => {
    seen.push(`pre-execute ${String(state.args.file_path)}`);
    return { decision: 'ask' };
  });
  t.host.guards.register({
    id: 'guard',
    check: (input) => {
      seen.push(`guard ${String(input.args.file_path)}`);
      return 'abstain';
    },
  });
  return t;
}

describe('the session anchors of a host', () => {
  it('default to the process working directory, the same project directory and the user home, frozen', () => {
    const host = createHost();
    expect(host.anchors).toEqual({ cwd: process.cwd(), projectDir: process.cwd(), homeDir: homedir() });
    expect(Object.isFrozen(host.anchors)).toBe(true);
  });

  it('resolve relative options: cwd against the process, projectDir against cwd', () => {
    const host = createHost({ cwd: 'sub', projectDir: '..', homeDir: '/h' });
    expect(host.anchors).toEqual({ cwd: path.resolve('sub'), projectDir: process.cwd(), homeDir: '/h' });
  });

  it('refuse a directory holding a NUL byte, naming the field', () => {
    expect(() => createHost({ cwd: '/a\0b' })).toThrow(/createHost: cwd: must not contain NUL bytes/);
  });
});

describe('anchorPath', () => {
  const anchors = { cwd, homeDir: home };
  it.each([
    ['a/b', `${cwd}/a/b`],
    ['./a', `${cwd}/a`],
    ['../x', '/srv/session/x'],
    ['~', home],
    ['~/notes', `${home}/notes`],
    ['/etc/hosts', '/etc/hosts'],
    ['/srv/./session/../session/work', cwd],
    ['~user/x', `${cwd}/~user/x`],
  ])('turns %s into %s', (input, expected) => {
    expect(anchorPath(input, anchors)).toBe(expected);
  });

  it('resolves relative paths against a tool’s own base when given one', () => {
    expect(anchorPath('a', anchors, '/other')).toBe('/other/a');
    expect(anchorPath('~/a', anchors, '/other')).toBe(`${home}/a`);
  });
});

describe('a tool that resolves its paths (invariant 14)', () => {
  it('shows every policy stage and the body the one resolved path, and logs it as the effective args', async () => {
    const seen: string[] = [];
    const t = await hostWith(seen);
    expect(await t.call('open', { file_path: '../work/./notes.md' })).toMatchObject({ status: 'ok', output: `${cwd}/notes.md` });
    const at = `${cwd}/notes.md`;
    expect(seen).toEqual([`pre-execute ${at}`, `approval ${at}`, `guard ${at}`, `body ${at}`]);
    const call = t.host.events.list().find((e) => e.type === 'tool/call');
    expect(call?.data).toMatchObject({ args: { file_path: '../work/./notes.md' } });
    const result = t.host.events.list().find((e) => e.type === 'tool/result');
    expect(result?.data).toMatchObject({ args: { file_path: at, mode: 'r' } });
    expect(result?.data).not.toHaveProperty('originalArgs');
  });

  it('resolves a path a pre-execute tap rewrites before the next tap, the guard and the body see it', async () => {
    const seen: string[] = [];
    const t = await createTestHost({ cwd, homeDir: home });
    t.host.tools.register(pathTool(seen));
    t.host.hooks.preExecute.tap({ name: 'rewriter', stage: 0 }, (state) => ({ args: { ...state.args, file_path: '~/other.md' } }));
    t.host.hooks.preExecute.tap({ name: 'judge', stage: 1 }, (state) => {
      seen.push(`judge ${String(state.args.file_path)}`);
    });
    t.host.guards.register({
      id: 'guard',
      check: (input) => {
        seen.push(`guard ${String(input.args.file_path)}`);
        return 'abstain';
      },
    });
    expect(await t.call('open', { file_path: 'a.md' })).toMatchObject({ status: 'ok', output: `${home}/other.md` });
    expect(seen).toEqual([`judge ${home}/other.md`, `guard ${home}/other.md`, `body ${home}/other.md`]);
    const result = t.host.events.list().find((e) => e.type === 'tool/result');
    expect(result?.data).toMatchObject({ args: { file_path: `${home}/other.md` }, originalArgs: { file_path: `${cwd}/a.md` } });
  });

  it('fails the call with PATH_RESOLUTION_FAILED when resolving throws: no policy stage and no body sees it', async () => {
    const seen: string[] = [];
    const t = await hostWith(seen, () => {
      throw new Error('a loop of links');
    });
    expect(await t.call('open', { file_path: 'x' })).toMatchObject({
      status: 'error',
      stage: 'validate',
      error: { code: 'PATH_RESOLUTION_FAILED', message: 'tool "open" could not resolve the paths in its arguments: a loop of links' },
    });
    expect(seen).toEqual([]);
  });

  it('ends the call with the tool’s own code and data when resolving throws a ToolError, before any policy sees it', async () => {
    const seen: string[] = [];
    const t = await hostWith(seen, () => {
      throw new ToolError('FS_PATH_OUTSIDE_ROOTS', '/etc/x is outside the workspace', { data: { path: '/etc/x' } });
    });
    expect(await t.call('open', { file_path: '/etc/x' })).toEqual({
      status: 'error',
      stage: 'validate',
      error: { code: 'FS_PATH_OUTSIDE_ROOTS', message: '/etc/x is outside the workspace', data: { path: '/etc/x' } },
    });
    expect(seen).toEqual([]);
  });

  it('fails the call when the resolved arguments no longer pass the tool’s schema', async () => {
    const seen: string[] = [];
    const t = await hostWith(seen, (args) => ({ ...args, file_path: '' }));
    const outcome = await t.call('open', { file_path: 'x' });
    expect(outcome).toMatchObject({ status: 'error', error: { code: 'PATH_RESOLUTION_FAILED' } });
    expect(seen).toEqual([]);
  });

  it('denies when a tap rewrites arguments the tool cannot resolve', async () => {
    const seen: string[] = [];
    const t = await createTestHost({ cwd });
    t.host.tools.register(
      pathTool(seen, (args) => {
        if (args.file_path === 'bad') throw new Error('cannot');
        return args;
      }),
    );
    t.host.hooks.preExecute.tap('rewriter', (state) => ({ args: { ...state.args, file_path: 'bad' } }));
    expect(await t.call('open', { file_path: 'good' })).toMatchObject({
      status: 'denied',
      stage: 'pre-execute',
      code: 'PRE_EXECUTE_FAILED',
      reason: 'pre-execute tap "rewriter" rewrote the arguments, but tool "open" could not resolve the paths in its arguments: cannot',
    });
    expect(seen).toEqual([]);
  });

  it('records no effective args when resolving hands back the very arguments it got', async () => {
    const seen: string[] = [];
    const t = await hostWith(seen, (args) => args);
    await t.call('open', { file_path: '/abs' });
    const result = t.host.events.list().find((e) => e.type === 'tool/result');
    expect(result?.data).not.toHaveProperty('args');
  });

  it('is refused at registration when resolvePaths is not a function', async () => {
    const t = await createTestHost();
    const bad = { ...pathTool([]), resolvePaths: 'yes' } as unknown as Parameters<typeof t.host.tools.register>[0];
    expect(() => t.host.tools.register(bad)).toThrow(DshError);
  });
});
