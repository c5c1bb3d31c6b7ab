import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runDsh, scratchDir } from './fixtures/run-dsh.js';

const bwrapWorks = (stdout: string): boolean => stdout.includes('sandbox:   bubblewrap');

describe('dsh demo, run as a real process', () => {
  it('runs every plugin offline, prints plain cards when not a TTY, and ends with the session log path', async () => {
    const home = scratchDir();
    const run = await runDsh(['demo'], { cwd: home, home });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = run.stdout;
    expect(out.includes('\u001b[')).toBe(false);
    expect(out).toContain(
      'plugins:   otel, timeout-policy, retry-policy, tool-fs, tool-bash, hooks-bridge, permissions, demo-guards, code-mode',
    );
    // Files: a read, an edit with its diff, read-before-edit and a symlink escape.
    expect(out).toMatch(/✔ Edit .*src\/app\.js \[edit-app\] ok/);
    expect(out).toContain('+console.log(greet(process.argv[2] ?? "world"));');
    expect(out).toMatch(/✘ Edit src\/util\.js \[edit-unread\] denied FS_NOT_READ \(execute: tool-fs\/read-before-edit\)/);
    expect(out).toMatch(/\[read-escape\] error FS_SYMLINK_ESCAPE/);
    // Bash: live output lines before the completed card, then the hook's context.
    const live = out.indexOf('    │ tick 3');
    expect(live).toBeGreaterThan(-1);
    expect(out.indexOf('✔ bash [bash-ticks] ok')).toBeGreaterThan(live);
    expect(out).toContain('Note from .claude/hooks/bash-context.sh');
    expect(out).toMatch(/\[bash-sleep\] error TOOL_TIMEOUT/);
    expect(out).toMatch(/\[bash-rm\] denied PRE_EXECUTE_DENIED \(pre-execute: hooks-bridge\)\n {4}rm -rf is not allowed/);
    // An approval, then a guard that overrules it.
    expect(out).toMatch(
      /\? approve bash \{"command":"git push --force origin main"\}[^\n]*\n {2}→ yes, once\n✘ bash \[bash-push\] denied GUARD_DENIED \(guard: demo\/no-force-push\)/,
    );
    // Code Mode: four sub-calls and a summary; a forbidden write caught by the program.
    expect(out).toContain('[code-summary:code:3] ok');
    expect(out).toContain('returned: {"files":{"src/app.js":4,"src/util.js":4,"src/math.js":2}');
    expect(out).toContain('console: write refused: PRE_EXECUTE_DENIED');
    if (bwrapWorks(out)) expect(out).toMatch(/\/etc\/dsh-demo: Read-only file system/);
    else expect(out).toContain('skipped: without bubblewrap');

    const logPath = /Session log \(JSONL, (\d+) events\): (\S+)\n$/.exec(out);
    expect(logPath).not.toBeNull();
    const [, count, path] = logPath as RegExpExecArray;
    expect(existsSync(path as string)).toBe(true);
    const events = readFileSync(path as string, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number; type: string; call?: string });
    expect(events).toHaveLength(Number(count));
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const calls = events.filter((e) => e.type === 'tool/call').map((e) => e.call);
    const results = events.filter((e) => e.type === 'tool/result').map((e) => e.call);
    expect([...results].sort()).toEqual([...calls].sort());
    expect(events.some((e) => e.type === 'tool/code-dispatch')).toBe(true);
    expect(events.some((e) => e.type === 'hook/result')).toBe(true);
  }, 60_000);

  it('says so and skips the write outside the workspace when told not to use the sandbox', async () => {
    const home = scratchDir();
    const run = await runDsh(['demo', '--no-sandbox'], { cwd: home, home });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('sandbox:   none — bubblewrap is not available (turned off with --no-sandbox)');
    expect(run.stdout).toContain('skipped: without bubblewrap nothing would stop it');
    expect(run.stdout).not.toContain('[bash-etc]');
    expect(run.stdout).toMatch(/\[bash-sleep\] error TOOL_TIMEOUT/);
  }, 60_000);
});
