import { chmodSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { put, runDsh, workspace } from './fixtures/run-dsh.js';
import type { HooksCheckReport } from './hooks/report.js';

describe('dsh hooks check', () => {
  it('runs the matching hook on a sample call and shows its stdin, exit code, stderr and the combined decision', async () => {
    const ws = workspace();
    const run = await runDsh(['hooks', 'check', '--tool', 'Bash', '--input', '{"command":"rm -rf build"}', '--expect', 'deny'], {
      cwd: ws.root,
      home: ws.home,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('.claude/settings.json#hooks.PreToolUse[0].hooks[0] (claude PreToolUse) ▶ ran');
    expect(run.stdout).toContain('command:   "$CLAUDE_PROJECT_DIR"/.claude/hooks/block-rm.sh');
    expect(run.stdout).toMatch(
      /stdin: +\{"session_id":"hooks-check".*"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":\{"command":"rm -rf build"\}/,
    );
    expect(run.stdout).toMatch(/exit code: 2 /);
    expect(run.stdout).toContain('stderr:    rm -rf is not allowed in this project');
    expect(run.stdout).toContain('effect:    exit code 2 blocks the call');
    expect(run.stdout).toContain('matcher "Edit|Write|MultiEdit" does not match the tool name "Bash"');
    expect(run.stdout).toContain('combined decision: deny');
  });

  it('explains a matcher that does not match, and exits 1 when the decision is not the expected one', async () => {
    const ws = workspace();
    const run = await runDsh(
      ['hooks', 'check', '--tool', 'edit', '--input', '{"file_path":"src/app.js","old_string":"a","new_string":"b"}', '--expect', 'deny'],
      {
        cwd: ws.root,
        home: ws.home,
      },
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('matcher "Bash" does not match the tool name "Edit"');
    // The demo's PostToolUse hook matches edits, and is explained, not run.
    expect(run.stdout).toContain("but PostToolUse runs after the tool's body");
    expect(run.stdout).toContain('combined decision: none');
    expect(run.stderr).toContain('expected the hooks to decide "deny", they decided "none"');
  });

  it('checks a settings file given with --settings: JSON answers, plain-text stdout, non-blocking exits and if rules', async () => {
    const ws = workspace();
    const ask = put(
      ws.base,
      'hooks/ask.py',
      'import json, sys\npayload = json.load(sys.stdin)\nprint("checking", payload["tool_input"]["command"])\nprint(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "pushes need a second look", "additionalContext": "remember the release branch"}}))\n',
    );
    const chatty = put(ws.base, 'hooks/chatty.sh', '#!/bin/sh\ncat >/dev/null\necho "just saying hello"\n');
    const failing = put(ws.base, 'hooks/failing.sh', '#!/bin/sh\necho "something broke" >&2\nexit 1\n');
    chmodSync(chatty, 0o755);
    chmodSync(failing, 0o755);
    const settings = put(
      ws.base,
      'check-settings.json',
      JSON.stringify({
        hooks: {
          PreToolUse: [
            { matcher: 'Bash', hooks: [{ type: 'command', command: `python3 ${ask}` }] },
            {
              matcher: 'Bash',
              hooks: [
                { type: 'command', command: chatty },
                { type: 'command', command: failing },
              ],
            },
            { matcher: 'Bash', hooks: [{ type: 'command', command: 'exit 2', if: 'Bash(rm *)' }] },
            { matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'exit 2' }] },
          ],
        },
      }),
    );
    const run = await runDsh(
      ['hooks', 'check', '--settings', settings, '--tool', 'Bash', '--input', '{"command":"git push origin main"}', '--json'],
      {
        cwd: ws.root,
        home: ws.home,
      },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as HooksCheckReport;
    expect(report.hooks.map((h) => [h.id, h.ran])).toEqual([
      ['options#hooks.claude.PreToolUse[0].hooks[0]', true],
      ['options#hooks.claude.PreToolUse[1].hooks[0]', true],
      ['options#hooks.claude.PreToolUse[1].hooks[1]', true],
      ['options#hooks.claude.PreToolUse[2].hooks[0]', false],
      ['options#hooks.claude.PreToolUse[3].hooks[0]', false],
    ]);
    const [asker, plain, broken, conditional, other] = report.hooks;
    expect(asker?.stdout).toContain('checking git push origin main');
    expect(JSON.parse(asker?.stdin ?? '{}')).toMatchObject({ tool_name: 'Bash', tool_input: { command: 'git push origin main' } });
    expect(asker?.decision).toBe('ask');
    expect(plain?.effect).toContain('plain text on stdout is ignored');
    expect(broken?.exitCode).toBe(1);
    expect(broken?.stderr).toContain('something broke');
    expect(broken?.effect).toContain('non-blocking');
    expect(conditional?.why).toContain('its "if" "Bash(rm *)" does not match this input');
    expect(other?.why).toContain('matcher "Edit|Write" does not match the tool name "Bash"');
    expect(report.decision).toBe('ask');
    expect(report.reason).toContain('pushes need a second look');
    expect(report.context).toEqual(['remember the release branch']);
  });

  it('exits 4 for input that is not a JSON object, and for an unknown tool', async () => {
    const ws = workspace();
    const notJson = await runDsh(['hooks', 'check', '--tool', 'Bash', '--input', 'rm -rf /'], { cwd: ws.root, home: ws.home });
    expect(notJson.code).toBe(4);
    expect(notJson.stderr).toContain('INPUT_INVALID: --input is not JSON');
    const unknown = await runDsh(['hooks', 'check', '--tool', 'NotebookEdit', '--input', '{}'], { cwd: ws.root, home: ws.home });
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toContain('--tool NotebookEdit: no configured tool has that name; known: ');
    expect(unknown.stderr).toContain('bash (Bash)');
  });
});
