import { definePlugin, defineTool, type Plugin, type PreExecuteUpdate, z } from '@deepseek-ai/dsh-core';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { permissionHost } from './fixtures/hosts.js';
import { makeProject, type Project } from './fixtures/project.js';
import { fixtureTools } from './fixtures/tools.js';
import { permissions } from './plugin.js';

let project: Project;
beforeEach(() => {
  project = makeProject();
});
afterEach(() => project.dispose());

/** A plugin with one pre-execute tap, like a hook bridge. */
function tapPlugin(
  name: string,
  stage: number,
  update: PreExecuteUpdate | ((args: Readonly<Record<string, unknown>>) => PreExecuteUpdate),
): Plugin {
  return definePlugin({
    name,
    version: '0.0.0',
    register(host) {
      host.hooks.preExecute.tap({ name, stage }, (state) => (typeof update === 'function' ? update(state.args) : update));
    },
  });
}

async function hostWithTap(tap: Plugin, rules: { allow?: string[]; deny?: string[]; ask?: string[] }) {
  const perms = permissions({ projectDir: project.dir, homeDir: project.home, settingsFiles: false, rules });
  const asked: string[] = [];
  const t = await createTestHost({
    plugins: [fixtureTools(), tap, perms],
    approval: perms.approval((request) => {
      asked.push(request.reason ?? '');
      return 'rejected';
    }),
  });
  return { t, asked };
}

describe('an earlier pre-execute tap', () => {
  it('keeps its ask even when an allow rule covers the call, as Claude Code does', async () => {
    const { t, asked } = await hostWithTap(tapPlugin('hook', 0, { decision: 'ask', reason: 'hook wants a look' }), {
      allow: ['Bash(ls *)'],
    });
    expect(await t.call('shell', { command: 'ls' })).toMatchObject({ status: 'denied', stage: 'approval' });
    expect(asked).toEqual(['permissions (mode default): "hook" asked for approval: hook wants a look']);
  });

  it('has its ask turned into a deny in dontAsk mode', async () => {
    const perms = permissions({ projectDir: project.dir, settingsFiles: false, mode: 'dontAsk', rules: { allow: ['Bash'] } });
    const t = await createTestHost({ plugins: [fixtureTools(), tapPlugin('hook', 0, { decision: 'ask' }), perms] });
    const outcome = await t.call('shell', { command: 'ls' });
    expect(outcome).toMatchObject({ status: 'denied', stage: 'pre-execute' });
    expect(outcome.status === 'denied' && outcome.reason).toMatch(/"hook" asked for approval, and dontAsk turns every ask into a deny/);
  });

  it('cannot allow past a deny rule or an ask rule', async () => {
    const { t, asked } = await hostWithTap(tapPlugin('hook', 0, { decision: 'allow' }), {
      deny: ['Bash(rm *)'],
      ask: ['Bash(git push *)'],
    });
    expect(await t.call('shell', { command: 'rm -rf ~' })).toMatchObject({ status: 'denied', stage: 'pre-execute', by: 'permissions' });
    expect(await t.call('shell', { command: 'git push' })).toMatchObject({ status: 'denied', stage: 'approval' });
    expect(asked).toHaveLength(1);
  });

  it('allows what no rule speaks of, and the decision records that tap', async () => {
    const { t } = await hostWithTap(tapPlugin('hook', 0, { decision: 'allow' }), {});
    expect((await t.call('shell', { command: 'make' })).status).toBe('ok');
    const event = t.host.events.list().find((e) => e.type === 'permissions/decision');
    expect(event?.data).toMatchObject({ decision: 'allow', by: [{ kind: 'tap', tap: 'hook' }] });
  });

  it('ends the waterfall with its deny before the rules are consulted', async () => {
    const { t } = await hostWithTap(tapPlugin('hook', 0, { decision: 'deny', reason: 'no' }), { allow: ['Bash'] });
    expect(await t.call('shell', { command: 'ls' })).toMatchObject({ status: 'denied', by: 'hook' });
    expect(t.host.events.list().some((e) => e.type === 'permissions/decision')).toBe(false);
  });
});

describe('the permissions guard', () => {
  it('denies a call that a later tap allowed although an ask rule asks for it', async () => {
    const { t, asked } = await hostWithTap(tapPlugin('late', 200, { decision: 'allow' }), { ask: ['Bash(git push *)'] });
    const outcome = await t.call('shell', { command: 'git push' });
    expect(outcome).toMatchObject({ status: 'denied', stage: 'guard', by: 'permissions' });
    expect(outcome.status === 'denied' && outcome.reason).toMatch(
      /ask rule "Bash\(git push \*\)".*a later pre-execute tap allowed the call without asking/,
    );
    expect(asked).toHaveLength(0);
  });

  it('checks deny rules again when a later tap rewrites the arguments', async () => {
    const rewrite = tapPlugin('late', 200, { args: { command: 'ls; rm -rf ~' } });
    const { t } = await hostWithTap(rewrite, { allow: ['Bash(ls)'], deny: ['Bash(rm *)'] });
    const outcome = await t.call('shell', { command: 'ls' });
    expect(outcome).toMatchObject({ status: 'denied', stage: 'guard', by: 'permissions' });
    expect(outcome.status === 'denied' && outcome.reason).toMatch(/deny rule "Bash\(rm \*\)".*checked again on the final arguments/);
  });

  it('can be turned off', async () => {
    const perms = permissions({ projectDir: project.dir, settingsFiles: false, guard: false });
    const t = await createTestHost({ plugins: [fixtureTools(), perms] });
    expect(t.host.guards.ids()).toEqual([]);
  });
});

describe('permissions()', () => {
  it('rejects bad options naming the field', () => {
    expect(() => permissions({ mode: 'yolo' } as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS', message: expect.stringContaining('mode') }),
    );
    expect(() => permissions({ rules: { allow: 'Bash' } } as never)).toThrow(/rules\.allow/);
    expect(() => permissions({ surprise: 1 } as never)).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
  });

  it('refuses to be registered on a second host', async () => {
    const perms = permissions({ projectDir: project.dir, settingsFiles: false });
    await createTestHost({ plugins: [perms] });
    await expect(createTestHost({ plugins: [perms] })).rejects.toThrow(/already registered on a host/);
  });

  it('denies a call whose tool cannot map its arguments to Claude Code names', async () => {
    const broken = definePlugin({
      name: 'broken',
      version: '0.0.0',
      register(host) {
        host.tools.register(
          defineTool({
            name: 'broken',
            description: 'Maps badly.',
            input: z.object({}),
            execute: () => 'ran',
            external: {
              claude: {
                name: 'Bash',
                toExternal: () => {
                  throw new Error('no mapping');
                },
                fromExternal: () => ({}),
              },
            },
          }),
        );
      },
    });
    const t = await createTestHost({
      plugins: [broken, permissions({ projectDir: project.dir, settingsFiles: false, rules: { allow: ['Bash'] } })],
    });
    const outcome = await t.call('broken', {});
    expect(outcome).toMatchObject({ status: 'denied', code: 'PRE_EXECUTE_FAILED' });
    expect(outcome.status === 'denied' && outcome.reason).toMatch(/could not map its arguments to Claude Code's "Bash": no mapping/);
  });

  it('decides calls to tools without a Claude name by their own name, and MCP tools by server', async () => {
    const t = await permissionHost(project, {
      settingsFiles: false,
      rules: { allow: ['todo', 'mcp__github'], deny: ['mcp__github__get_issue(*)'] },
    });
    expect((await t.call('todo', { text: 'x' })).status).toBe('ok');
    expect((await t.call('mcp__github__get_issue', { number: 1 })).status).toBe('denied');
  });

  it('reads a rule naming a tool by its dsh name the way its Claude Code name would be read', async () => {
    const t = await permissionHost(project, { settingsFiles: false, rules: { allow: ['shell(ls *)'], deny: ['shell(rm *)'] } });
    expect((await t.call('shell', { command: 'ls -la' })).status).toBe('ok');
    expect(await t.call('shell', { command: 'ls; rm -rf ~' })).toMatchObject({ status: 'denied', stage: 'pre-execute' });
    expect(await t.call('shell', { command: 'ls && touch x' })).toMatchObject({ status: 'denied', stage: 'approval' });
  });

  it('answers what it would decide without running or logging anything', async () => {
    const t = await permissionHost(project, { settingsFiles: false, rules: { deny: ['Bash(rm *)'] } });
    expect(t.perms.check('shell', { command: 'ls && rm x' })).toMatchObject({ decision: 'deny', mode: 'default' });
    expect(t.perms.check('shell', { command: 'ls' })).toMatchObject({ decision: 'ask', rememberable: true, uncovered: ['ls'] });
    expect(t.ran.calls).toHaveLength(0);
    expect(t.host.events.list()).toHaveLength(0);
    expect(() => t.perms.check('nope', {})).toThrow(expect.objectContaining({ code: 'NOT_REGISTERED' }));
    expect(() => permissions({ settingsFiles: false }).check('shell', {})).toThrow(/not registered/);
  });

  it('ignores the host default decision: the mode decides', async () => {
    const perms = permissions({ projectDir: project.dir, settingsFiles: false, mode: 'dontAsk' });
    const t = await createTestHost({ plugins: [fixtureTools(), perms], defaultDecision: 'allow' });
    expect((await t.call('shell', { command: 'ls' })).status).toBe('denied');
  });

  it('does not log decisions when told not to', async () => {
    const t = await permissionHost(project, { settingsFiles: false, recordDecisions: false, rules: { allow: ['Bash'] } });
    await t.call('shell', { command: 'ls' });
    expect(t.host.events.list().some((e) => e.type === 'permissions/decision')).toBe(false);
  });

  it('decides sub-calls made through host.tools.execute like any other call', async () => {
    const t = await permissionHost(project, { settingsFiles: false, rules: { deny: ['Bash(rm *)'], allow: ['Bash'] } });
    const outcome = await t.host.tools.execute(
      { id: 'sub-1', name: 'shell', args: { command: 'rm -rf ~' } },
      { id: 'outer', token: 'tok' },
    );
    expect(outcome).toMatchObject({ status: 'denied', stage: 'pre-execute' });
  });
});
