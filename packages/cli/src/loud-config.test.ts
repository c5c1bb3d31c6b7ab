import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ConfigCheckReport } from './config-check/report-types.js';
import { claudeAsksTranscript, put, runDsh, scratchDir, workspace } from './fixtures/run-dsh.js';

/** The demo workspace with one trailing comma added to its `.claude/settings.json`, as a person might leave it. */
function workspaceWithTrailingComma(): { root: string; home: string; where: string; line: number } {
  const ws = workspace();
  const path = `${ws.root}/.claude/settings.json`;
  const text = readFileSync(path, 'utf8');
  // `}` closing the top-level object, preceded by a comma after the last member.
  const broken = text.replace(/\n}\s*$/, ',\n}\n');
  put(ws.root, '.claude/settings.json', broken);
  const lines = broken.split('\n');
  const line = lines.length - 1;
  return { root: ws.root, home: ws.home, where: `.claude/settings.json:${line}:1`, line };
}

describe('a settings file that is not JSON is said before anything runs (issue 38)', () => {
  it('replay prints the file, line and column first, and suggests no rule for the policy it could not read', async () => {
    const ws = workspaceWithTrailingComma();
    const run = await runDsh(['replay', claudeAsksTranscript, '--no-color'], { cwd: ws.root, home: ws.home });
    expect(run.code).toBe(0);
    // Both plugins that read the file say so: its rules and its hooks are off.
    expect(run.stderr).toMatch(/^dsh: 2 configuration problems: what they name is not in force\n/);
    expect(run.stderr).toContain(`  ${ws.where}: not valid JSON (`);
    expect(run.stderr).toContain('); none of its rules apply [permissions INVALID_SETTINGS]');
    expect(run.stderr).toContain(`.claude/settings.json: not valid JSON at line ${ws.line}, column 1: `);
    expect(run.stderr).toContain('[hooks-bridge HOOK_CONFIG_INVALID]');
    expect(run.stdout).toContain('No rule suggestions: the policy replayed is not the one configured');
    expect(run.stdout).not.toContain('Asked most often');
  });

  it('replay --json leaves out the suggestions too', async () => {
    const ws = workspaceWithTrailingComma();
    const run = await runDsh(['replay', claudeAsksTranscript, '--json'], { cwd: ws.root, home: ws.home });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(ws.where);
    expect(JSON.parse(run.stdout)).not.toHaveProperty('policy');
  });

  it('--strict makes it fatal: exit 3, CONFIG_INVALID naming the file, and nothing replayed', async () => {
    const ws = workspaceWithTrailingComma();
    const run = await runDsh(['replay', claudeAsksTranscript, '--strict'], { cwd: ws.root, home: ws.home });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/^dsh: CONFIG_INVALID: --strict: 2 configuration problems/);
    expect(run.stderr).toContain(ws.where);
    expect(run.stdout).toBe('');
  });

  it('catalog says it and goes on, and fails with --strict', async () => {
    const ws = workspaceWithTrailingComma();
    const loose = await runDsh(['catalog', '--json'], { cwd: ws.root, home: ws.home });
    expect(loose.code).toBe(0);
    expect(loose.stderr).toContain(ws.where);
    const strict = await runDsh(['catalog', '--strict'], { cwd: ws.root, home: ws.home });
    expect(strict.code).toBe(3);
    expect(strict.stderr).toContain(ws.where);
  });

  it('says nothing when the settings are sound', async () => {
    const ws = workspace();
    const run = await runDsh(['catalog', '--json', '--strict'], { cwd: ws.root, home: ws.home });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });

  it('config check exits 3 and shows the file skipped with its line and column', async () => {
    const ws = workspaceWithTrailingComma();
    const run = await runDsh(['config', 'check', '--json'], { cwd: ws.root, home: ws.home });
    expect(run.code).toBe(3);
    const report = JSON.parse(run.stdout) as ConfigCheckReport;
    expect(report.files.find((f) => f.path === '.claude/settings.json')).toMatchObject({ status: 'skipped' });
    expect(report.skipped).toContainEqual(expect.objectContaining({ kind: 'settings', code: 'INVALID_SETTINGS' }));
    expect(report.skipped.find((s) => s.code === 'INVALID_SETTINGS')?.why).toContain(ws.where);
  });
});

describe('dsh config check validates what the other commands validate (issue 38)', () => {
  const badSandbox = { plugins: { toolBash: { sandbox: { fallback: 'maybe' } } } };

  it('refuses an option the bash plugin refuses, with the message catalog gives', async () => {
    const dir = scratchDir();
    const home = scratchDir();
    put(dir, 'dsh.config.json', JSON.stringify(badSandbox));
    const check = await runDsh(['config', 'check'], { cwd: dir, home });
    const catalog = await runDsh(['catalog'], { cwd: dir, home });
    expect(catalog.code).toBe(3);
    expect(check.code).toBe(3);
    expect(check.stderr).toMatch(/CONFIG_INVALID: .*plugins\.toolBash\.sandbox\.fallback/);
    expect(check.stderr).toBe(catalog.stderr);
  });

  it('refuses options of plugins it does not start (mcp, codeMode, otel)', async () => {
    const dir = scratchDir();
    const home = scratchDir();
    put(dir, 'dsh.config.json', JSON.stringify({ plugins: { codeMode: { memoryLimitBytes: 1 } } }));
    const check = await runDsh(['config', 'check'], { cwd: dir, home });
    expect(check.code).toBe(3);
    expect(check.stderr).toMatch(/CONFIG_INVALID: .*plugins\.codeMode/);
  });

  it('exits 0 on a project with nothing wrong', async () => {
    const ws = workspace();
    const run = await runDsh(['config', 'check', '--json'], { cwd: ws.root, home: ws.home });
    expect(run.stderr).toBe('');
    expect((JSON.parse(run.stdout) as ConfigCheckReport).skipped).toEqual([]);
    expect(run.code).toBe(0);
  });
});

describe('a hook script without its execute bit is flagged without running it (issue 38)', () => {
  function projectWithHook(): { dir: string; home: string } {
    const dir = scratchDir();
    const home = scratchDir();
    const hook = { type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh' };
    put(dir, '.claude/settings.json', JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [hook] }] } }));
    // Written as an editor writes it: mode 0644, no execute bit.
    put(dir, '.claude/hooks/guard.sh', '#!/bin/sh\nexit 2\n');
    return { dir, home };
  }

  it('by config check', async () => {
    const p = projectWithHook();
    const run = await runDsh(['config', 'check', '--json'], { cwd: p.dir, home: p.home });
    expect(run.code).toBe(3);
    const report = JSON.parse(run.stdout) as ConfigCheckReport;
    expect(report.skipped).toEqual([
      expect.objectContaining({
        kind: 'hook',
        code: 'HOOK_NOT_EXECUTABLE',
        why: expect.stringContaining('.claude/hooks/guard.sh has no execute bit'),
      }),
    ]);
  });

  it('by hooks check', async () => {
    const p = projectWithHook();
    const run = await runDsh(['hooks', 'check', '--no-color'], { cwd: p.dir, home: p.home });
    expect(run.code).toBe(3);
    expect(run.stdout).toContain('HOOK_NOT_EXECUTABLE');
  });
});
