import { afterEach, describe, expect, it } from 'vitest';
import { claudeHooks, cleanupAll, eventsOf, hostFor, ran, tempProject } from './fixtures/kit.js';
import { HookErrorCode, hooksBridge, loadHookConfig } from './index.js';

afterEach(() => {
  cleanupAll();
  ran.length = 0;
});

const cmd = (command: string) => ({ type: 'command', command });

describe('reading hook configuration', () => {
  it('concatenates user, project and local Claude settings in that order, with Claude defaults', () => {
    const p = tempProject();
    p.settings(`${p.home}/.claude/settings.json`, claudeHooks('PreToolUse', 'Bash', [cmd('user')]));
    p.settings('.claude/settings.json', claudeHooks('PreToolUse', 'Bash', [cmd('project')]));
    p.settings('.claude/settings.local.json', claudeHooks('PostToolUse', undefined, [{ ...cmd('local'), timeout: 5 }]));
    const { hooks, problems } = loadHookConfig({ projectDir: p.dir, homeDir: p.home });
    expect(problems).toEqual([]);
    expect(hooks.map((h) => [h.command, h.phase, h.timeoutMs, h.order])).toEqual([
      ['user', 'pre', 600_000, 0],
      ['project', 'pre', 600_000, 1],
      ['local', 'post', 5_000, 2],
    ]);
  });

  it('turns every Claude settings hook off with disableAllHooks, the most specific file deciding', () => {
    const p = tempProject();
    p.settings(`${p.home}/.claude/settings.json`, { disableAllHooks: true, ...claudeHooks('PreToolUse', 'Bash', [cmd('user')]) });
    p.settings('.claude/settings.json', claudeHooks('PreToolUse', 'Bash', [cmd('project')]));
    expect(loadHookConfig({ projectDir: p.dir, homeDir: p.home }).hooks).toEqual([]);
    p.settings('.claude/settings.local.json', { disableAllHooks: false });
    expect(loadHookConfig({ projectDir: p.dir, homeDir: p.home }).hooks).toHaveLength(2);
  });

  it('reports a bad matcher naming the file and the entry, and still loads the other hooks', async () => {
    const p = tempProject();
    p.settings('.claude/settings.json', {
      hooks: {
        PreToolUse: [
          { matcher: 'Bash(', hooks: [cmd('exit 0')] },
          {
            matcher: 'Bash',
            hooks: [{ type: 'command', command: 'echo "still here" >&2; exit 2' }, { type: 'http', url: 'http://x' }, { type: 'command' }],
          },
        ],
      },
    });
    const { hooks, problems } = loadHookConfig({ projectDir: p.dir, homeDir: p.home });
    expect(hooks).toHaveLength(1);
    expect(problems).toEqual([
      expect.objectContaining({
        source: '.claude/settings.json',
        entry: 'hooks.PreToolUse[0].matcher',
        message: expect.stringContaining('not a valid regular expression'),
      }),
      expect.objectContaining({
        entry: 'hooks.PreToolUse[1].hooks[1]',
        message: 'hook type "http" is not supported by hooks-bridge (only "command")',
      }),
      expect.objectContaining({ entry: 'hooks.PreToolUse[1].hooks[2]', message: expect.stringContaining('command') }),
    ]);
    const t = await hostFor(p);
    expect(await t.call('bash', { command: 'ls' })).toMatchObject({ status: 'denied', reason: 'still here' });
    expect(t.host.diagnostics.list().filter((d) => d.code === HookErrorCode.HOOK_CONFIG_INVALID)).toHaveLength(3);
    expect(t.host.events.list().filter((e) => (e.type as string) === 'hooks-bridge/config-problem')).toHaveLength(3);
  });

  it('takes an empty settings file for none, as the bash sandbox leaves one while a command runs', () => {
    const p = tempProject();
    p.write('.claude/settings.json', '');
    p.settings('.claude/settings.local.json', claudeHooks('PreToolUse', 'Bash', [cmd('exit 0')]));
    const { hooks, problems } = loadHookConfig({ projectDir: p.dir, homeDir: p.home });
    expect(problems).toEqual([]);
    expect(hooks).toHaveLength(1);
  });

  it('reports a settings file that is not JSON, and in strict mode denies every call naming it', async () => {
    const p = tempProject();
    p.write('.claude/settings.json', '{ "hooks": ');
    p.settings('.claude/settings.local.json', claudeHooks('PreToolUse', 'Bash', [cmd('exit 0')]));
    const { hooks, problems } = loadHookConfig({ projectDir: p.dir, homeDir: p.home });
    expect(hooks).toHaveLength(1);
    expect(problems[0]).toMatchObject({
      source: '.claude/settings.json',
      entry: '',
      message: expect.stringMatching(/^not valid JSON at line 1, column 12: /),
    });
    const t = await hostFor(p, { strict: true });
    const outcome = await t.call('bash', { command: 'ls' });
    expect(outcome.status === 'denied' && outcome.reason).toContain('.claude/settings.json: not valid JSON');
  });

  it('reads Gemini and Copilot units: milliseconds, seconds and their defaults', () => {
    const p = tempProject();
    p.settings('.gemini/settings.json', {
      hooksConfig: { disabled: ['skip-me'] },
      hooks: { BeforeTool: [{ hooks: [cmd('g1'), { ...cmd('g2'), timeout: 1500 }, { ...cmd('g3'), name: 'skip-me' }] }] },
    });
    p.settings('.github/hooks/h.json', {
      version: 1,
      hooks: {
        postToolUse: [
          { type: 'command', bash: 'c1' },
          { type: 'command', bash: 'c2', timeoutSec: 2 },
        ],
      },
    });
    const { hooks } = loadHookConfig({ projectDir: p.dir, homeDir: p.home });
    expect(hooks.map((h) => [h.dialect, h.command, h.timeoutMs])).toEqual([
      ['gemini', 'g1', 60_000],
      ['gemini', 'g2', 1_500],
      ['copilot', 'c1', 30_000],
      ['copilot', 'c2', 2_000],
    ]);
  });

  it('validates hooks given in code at the factory, naming the entry', () => {
    expect(() => hooksBridge({ hooks: { claude: { PreToolUse: [{ matcher: '[', hooks: [cmd('x')] }] } } })).toThrow(
      /hooksBridge: hooks\.claude\.PreToolUse\[0\]\.matcher: matcher "\[" is not a valid regular expression/,
    );
    expect(() => hooksBridge({ killGraceMs: -1 })).toThrow(/hooksBridge: killGraceMs:/);
    try {
      hooksBridge({ unknown: true } as never);
    } catch (error) {
      expect((error as { code?: string }).code).toBe('INVALID_OPTIONS');
    }
  });

  it('runs hooks given in code after the files, and disableAllHooks leaves them on', async () => {
    const p = tempProject();
    p.settings('.claude/settings.json', { disableAllHooks: true, ...claudeHooks('PreToolUse', 'Bash', [cmd('exit 2')]) });
    const t = await hostFor(p, {
      hooks: { claude: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo "from code" >&2; exit 2' }] }] } },
    });
    expect(await t.call('bash', { command: 'ls' })).toMatchObject({ status: 'denied', reason: 'from code' });
    expect(eventsOf(t, 'hook/invoked')[0]?.data.source).toBe('options');
  });
});
