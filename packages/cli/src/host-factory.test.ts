import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CliErrorCode } from './errors.js';
import { put, scratchDir } from './fixtures/run-dsh.js';
import { buildHost } from './host-factory.js';

const skill = `---
name: release-notes
description: Writes release notes from the changelog.
---
Read template.md in this folder, then write the notes.
`;

/** A workspace with one project skill (and a bundled file) and an empty home. */
function project(): { root: string; home: string } {
  const root = scratchDir();
  const home = scratchDir();
  put(root, '.claude/skills/release-notes/SKILL.md', skill);
  put(root, '.claude/skills/release-notes/template.md', '# Notes\n');
  return { root, home };
}

describe('buildHost with the tool plugins', () => {
  it('registers todo, web, skill and task beside the file and shell tools, with the permissions plugin reading them', async () => {
    const { root, home } = project();
    const built = await buildHost({
      workspace: root,
      config: {},
      overrides: { toolSkill: { homeDir: home }, toolSubagent: { homeDir: home }, permissions: { homeDir: home, grantsFile: false } },
    });
    try {
      const names = built.host.tools.list().map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['read', 'write', 'bash', 'todo_write', 'web_fetch', 'skill', 'task', 'run_code']));
      // No search provider configured: web_search is not offered.
      expect(names).not.toContain('web_search');
      expect(built.plugins).toEqual([
        'otel',
        'timeoutPolicy',
        'retryPolicy',
        'toolFs',
        'toolBash',
        'toolTodo',
        'toolWeb',
        'toolSkill',
        'mcp',
        'toolSubagent',
        'hooksBridge',
        'permissions',
        'codeMode',
      ]);
      expect(built.skills?.summary()).toContain('release-notes');
      expect(built.mcp?.servers()).toEqual([]);
      expect(built.mcp?.problems()).toEqual([]);
    } finally {
      await built.shutdown();
    }
  });

  it('gives the skill folders to tool-fs as read-only roots: a bundled file outside the workspace reads, and never writes', async () => {
    const { root, home } = project();
    // A user-level skill lives outside the workspace: only the read-only root makes its files readable.
    const userSkill = put(home, '.claude/skills/greet/SKILL.md', '---\nname: greet\ndescription: Greets.\n---\nSay hi.\n');
    const bundled = put(home, '.claude/skills/greet/hello.txt', 'hello from the skill\n');
    const built = await buildHost({
      workspace: root,
      config: { defaultDecision: 'allow', plugins: { permissions: false, hooksBridge: false } },
      overrides: { toolSkill: { homeDir: home }, toolSubagent: { homeDir: home } },
    });
    try {
      const { results } = await built.host.runStep({
        calls: [
          { id: 'load', name: 'skill', args: { name: 'greet' } },
          { id: 'read', name: 'read', args: { file_path: bundled } },
        ],
      });
      expect(results.map((r) => r.outcome.status)).toEqual(['ok', 'ok']);
      expect(JSON.stringify(results[1]?.outcome)).toContain('hello from the skill');
      const write = await built.host.runStep({ calls: [{ id: 'w', name: 'write', args: { file_path: bundled, content: 'x' } }] });
      expect(write.results[0]?.outcome.status).not.toBe('ok');
      expect(readFileSync(bundled, 'utf8')).toBe('hello from the skill\n');
      expect(readFileSync(userSkill, 'utf8')).toContain('name: greet');
    } finally {
      await built.shutdown();
    }
  });

  it('leaves a plugin out with false, and names the key of a bad option', async () => {
    const { root, home } = project();
    const built = await buildHost({
      workspace: root,
      config: { plugins: { toolWeb: false, toolTodo: false, mcp: false, toolSubagent: false } },
      overrides: { toolSkill: { homeDir: home } },
    });
    const names = built.host.tools.list().map((t) => t.name);
    await built.shutdown();
    expect(names).not.toContain('web_fetch');
    expect(names).not.toContain('todo_write');
    expect(names).not.toContain('task');
    expect(built.plugins).not.toContain('mcp');
    await expect(buildHost({ workspace: root, config: { plugins: { toolWeb: { maxRedirects: 99 } } } })).rejects.toMatchObject({
      code: CliErrorCode.CONFIG_INVALID,
      message: expect.stringContaining('plugins.toolWeb'),
    });
    await expect(buildHost({ workspace: root, config: { plugins: { toolSkill: { maxFiles: -1 } } } })).rejects.toMatchObject({
      code: CliErrorCode.CONFIG_INVALID,
      message: expect.stringContaining('plugins.toolSkill'),
    });
  });

  it('runs no model outside dsh run: a subagent started there fails at once with SUBAGENT_MODEL_FAILED saying so, not a hang', async () => {
    const { root, home } = project();
    const built = await buildHost({
      workspace: root,
      config: { defaultDecision: 'allow', plugins: { permissions: false, hooksBridge: false } },
      overrides: { toolSkill: { homeDir: home }, toolSubagent: { homeDir: home } },
    });
    try {
      const { results } = await built.host.runStep({
        calls: [{ id: 't', name: 'task', args: { description: 'look', prompt: 'Look around.' } }],
      });
      expect(results[0]?.outcome.status).toBe('error');
      expect(results[0]?.outcome).toMatchObject({
        error: { code: 'SUBAGENT_MODEL_FAILED', message: expect.stringContaining('runs no model') },
      });
    } finally {
      await built.shutdown();
    }
  });
});
