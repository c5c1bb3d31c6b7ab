import { chmodSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ConfigCheckReport } from './config-check/report-types.js';
import { put, runDsh, scratchDir } from './fixtures/run-dsh.js';

/** A project folder as real ones look: settings at every level, a hook, skills, agents and an MCP file, some of them broken. */
function fixtureProject(): { dir: string; home: string } {
  const base = scratchDir();
  const dir = `${base}/shop`;
  const home = `${base}/home`;
  put(
    home,
    '.claude/settings.json',
    `${JSON.stringify({ permissions: { allow: ['Bash(git status)'], deny: ['Read(~/.ssh/**)'] } }, null, 2)}\n`,
  );
  put(
    dir,
    '.claude/settings.json',
    `${JSON.stringify(
      {
        permissions: { deny: ['Write(//etc/**)', 'Bash('], allow: ['Grep(**)', 'Edit(src/**)'] },
        hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh' }] }] },
      },
      null,
      2,
    )}\n`,
  );
  // As Claude Code's "don't ask again" writes it, plus a catch-all someone added by hand.
  put(
    dir,
    '.claude/settings.local.json',
    String.raw`{
  "permissions": {
    "allow": [
      "Bash(npx jest --testPathPattern=\"\\(A|B\\)\")",
      "mcp__*"
    ]
  }
}
`,
  );
  chmodSync(put(dir, '.claude/hooks/guard.sh', '#!/bin/sh\nexit 0\n'), 0o755);
  put(dir, '.claude/skills/release/SKILL.md', '---\nname: release\ndescription: Cut a release.\n---\nSteps.\n');
  put(dir, '.claude/skills/broken/SKILL.md', '---\nname: broken\nname: twice\ndescription: Two names.\n---\nx\n');
  put(dir, '.claude/agents/reviewer.md', '---\nname: reviewer\ndescription: Reviews diffs.\ntools: Read, Grep\n---\nReview.\n');
  put(dir, '.claude/agents/nameless.md', '---\ndescription: [unclosed\n---\nx\n');
  put(dir, '.mcp.json', `${JSON.stringify({ mcpServers: { tracker: { command: 'tracker-mcp' } } })}\n`);
  return { dir, home };
}

const project = fixtureProject();

describe('dsh config check', () => {
  it('lists every file read, rule, hook, skill, agent and server, what was skipped and why, and the differences from Claude Code', async () => {
    const run = await runDsh(['config', 'check', project.dir, '--json'], { cwd: project.dir, home: project.home });
    expect(run.stderr).toBe('');
    // Rules, a skill and an agent are skipped: configuration not in force.
    expect(run.code).toBe(3);
    const report = JSON.parse(run.stdout) as ConfigCheckReport;
    const file = (path: string) => report.files.find((f) => f.path === path);
    expect(file('~/.claude/settings.json')).toMatchObject({ status: 'read', uses: expect.arrayContaining(['permissions', 'hooks']) });
    expect(file('.claude/settings.json')).toMatchObject({ status: 'read', uses: expect.arrayContaining(['permissions', 'hooks', 'mcp']) });
    expect(file('.claude/settings.local.json')).toMatchObject({ status: 'read' });
    expect(file('.gemini/settings.json')).toMatchObject({ status: 'missing', uses: ['hooks'] });
    expect(file('.mcp.json')).toMatchObject({ status: 'read', uses: ['mcp'] });
    expect(file('.claude/agents/reviewer.md')).toMatchObject({ status: 'read', uses: ['agents'] });
    expect(file('.claude/skills/release/SKILL.md')).toMatchObject({ status: 'read', uses: ['skills'] });

    expect(report.rules).toContainEqual({
      list: 'allow',
      rule: String.raw`Bash(npx jest --testPathPattern="\(A|B\)")`,
      source: '.claude/settings.local.json',
      line: 4,
    });
    expect(report.rules).toContainEqual({ list: 'deny', rule: 'Read(~/.ssh/**)', source: '~/.claude/settings.json', line: 7 });
    expect(report.hooks).toEqual([expect.objectContaining({ event: 'PreToolUse', source: '.claude/settings.json', dialect: 'claude' })]);
    expect(report.skills.map((s) => s.name)).toEqual(['release']);
    expect(file('~/.gemini/settings.json')).toMatchObject({ status: 'missing', uses: ['hooks'] });
    expect(report.agents.map((a) => a.name)).toEqual(['reviewer']);
    expect(report.mcpServers).toEqual([{ name: 'tracker', source: '.mcp.json' }]);

    const skipped = report.skipped.map((s) => [s.kind, s.code, s.path]);
    expect(skipped).toContainEqual(['rule', 'INVALID_RULE', '.claude/settings.json:5']);
    expect(skipped).toContainEqual(['rule', 'ALLOW_TOOL_WILDCARD_SKIPPED', '.claude/settings.local.json:5']);
    expect(report.skipped.find((s) => s.kind === 'skill' && s.path.includes('broken'))).toMatchObject({ whole: true });
    expect(skipped.some(([kind, , path]) => kind === 'agent' && String(path).includes('nameless'))).toBe(true);

    expect(report.differences.map((d) => [d.code, d.rule, d.claudeCode, d.dsh])).toEqual([
      ['PATH_RULE_NOT_CONSULTED', 'Write(//etc/**)', '2.1.209', 'applied'],
      ['PATH_RULE_NOT_CONSULTED', 'Grep(**)', '2.1.209', 'applied'],
      ['ALLOW_PATH_ANCHORED', 'Edit(src/**)', 'current documentation', 'applied'],
    ]);
  });

  it('prints the same in text, with the Claude Code version of each difference', async () => {
    const run = await runDsh(['config', 'check', project.dir, '--no-color'], { cwd: project.dir, home: project.home });
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/missing +\.gemini\/settings\.json/);
    expect(run.stdout).toContain('ALLOW_TOOL_WILDCARD_SKIPPED rule .claude/settings.local.json:5');
    expect(run.stdout).toContain('PATH_RULE_NOT_CONSULTED Write(//etc/**)  .claude/settings.json:4, Claude Code 2.1.209, dsh applied it');
  });

  it('refuses a folder that does not exist', async () => {
    const run = await runDsh(['config', 'check', `${project.dir}/nope`], { cwd: project.dir, home: project.home });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('not a project folder');
  });
});

describe('dsh hooks check without --tool', () => {
  it('lists the hook files looked at and the hooks found', async () => {
    const run = await runDsh(['hooks', 'check', '--json'], { cwd: project.dir, home: project.home });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as Pick<ConfigCheckReport, 'files' | 'hooks' | 'skipped'>;
    expect(report.files.every((f) => f.uses.includes('hooks'))).toBe(true);
    expect(report.files.map((f) => [f.path, f.status])).toContainEqual(['.claude/settings.json', 'read']);
    expect(report.hooks).toHaveLength(1);
    expect(report.skipped).toEqual([]);
  });

  it('refuses --input without --tool', async () => {
    const run = await runDsh(['hooks', 'check', '--input', '{}'], { cwd: project.dir, home: project.home });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--input needs --tool');
  });
});
