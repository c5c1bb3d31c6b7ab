import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { put, runDsh, workspace } from './fixtures/run-dsh.js';
import type { PolicyAdvice } from './replay/policy-advice.js';
import type { ReplayRow } from './replay/rows.js';

/** A Claude Code transcript line with one tool_use, recorded in `cwd`. */
function toolUse(cwd: string, id: string, name: string, input: Record<string, unknown>): string {
  return JSON.stringify({ type: 'assistant', cwd, message: { id: `msg_${id}`, content: [{ type: 'tool_use', id, name, input }] } });
}

/** The demo workspace with the permission mode `default`, so edits are asked. */
function askingWorkspace(): ReturnType<typeof workspace> {
  const ws = workspace();
  const settings = join(ws.root, '.claude/settings.json');
  const parsed = JSON.parse(readFileSync(settings, 'utf8')) as { permissions: { defaultMode: string } };
  parsed.permissions.defaultMode = 'default';
  put(ws.root, '.claude/settings.json', JSON.stringify(parsed, null, 2));
  return ws;
}

describe('dsh replay labels and suggestions a person can act on', () => {
  it('--execute shows a command’s exit code, and a body’s refusal without claiming it was allowed', async () => {
    const ws = askingWorkspace();
    const transcript = put(
      ws.base,
      'exits.jsonl',
      [
        toolUse(ws.root, 'toolu_fail', 'Bash', { command: 'echo hi; exit 3' }),
        toolUse(ws.root, 'toolu_write', 'Write', { file_path: join(ws.root, 'src/app.js'), content: 'x' }),
      ].join('\n'),
    );
    const json = await runDsh(['replay', transcript, '--execute', '--approval', 'allow', '--json'], { cwd: ws.root, home: ws.home });
    expect(json.code).toBe(0);
    const rows = (JSON.parse(json.stdout) as { rows: ReplayRow[] }).rows;
    expect(rows.map((r) => [r.call, r.decision, r.approval ?? null, r.code ?? null, r.result ?? null])).toEqual([
      ['toolu_fail', 'ask', 'allowed', null, 'exit 3'],
      ['toolu_write', 'deny', 'allowed', 'FS_NOT_READ', null],
    ]);
    const text = await runDsh(['replay', transcript, '--execute', '--approval', 'allow', '--no-color'], { cwd: ws.root, home: ws.home });
    expect(text.stdout).toMatch(/toolu_fail +Bash→bash +echo hi; exit 3 +ask→allowed \[exit 3\] /);
    expect(text.stdout).toMatch(/toolu_write +Write→write +src\/app\.js +deny FS_NOT_READ \(asked: allowed\) +execute /);
    expect(text.stdout).not.toContain('deny→allowed');
    expect(text.stdout).not.toContain('[denied');
  });

  it('suggests rules a project file can hold: ./ paths inside the project, a prefix rule for a command with free text', async () => {
    const ws = askingWorkspace();
    const transcript = put(
      ws.base,
      'asks.jsonl',
      [
        toolUse(ws.root, 'toolu_commit', 'Bash', { command: 'git commit -m "fix the greeting"' }),
        toolUse(ws.root, 'toolu_read', 'Read', { file_path: join(ws.root, 'src/app.js') }),
        toolUse(ws.root, 'toolu_edit', 'Edit', { file_path: join(ws.root, 'src/app.js'), old_string: 'world', new_string: 'there' }),
      ].join('\n'),
    );
    const run = await runDsh(['replay', transcript, '--json'], { cwd: ws.root, home: ws.home });
    expect(run.code).toBe(0);
    const { policy } = JSON.parse(run.stdout) as { policy: PolicyAdvice };
    expect(policy.suggestions.map((s) => [s.rules, s.covers])).toEqual([
      [['Bash(git commit *)'], ['toolu_commit']],
      [['Edit(./src/app.js)'], ['toolu_edit']],
    ]);
    // Pasted into the project's settings, they allow the same calls without asking.
    const settings = join(ws.root, '.claude/settings.json');
    const parsed = JSON.parse(readFileSync(settings, 'utf8')) as { permissions: { allow: string[] } };
    parsed.permissions.allow.push(...policy.suggestions.flatMap((s) => s.rules));
    put(ws.root, '.claude/settings.json', JSON.stringify(parsed, null, 2));
    const again = await runDsh(['replay', transcript, '--json'], { cwd: ws.root, home: ws.home });
    const rows = (JSON.parse(again.stdout) as { rows: ReplayRow[] }).rows;
    expect(rows.map((r) => [r.call, r.decision])).toEqual([
      ['toolu_commit', 'allow'],
      ['toolu_read', 'allow'],
      ['toolu_edit', 'allow'],
    ]);
  });
});
