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
      'plugins:   otel, timeout-policy, retry-policy, tool-fs, tool-bash, tool-todo, tool-web, tool-skill, mcp, tool-subagent, hooks-bridge, permissions, demo-guards, code-mode',
    );
    // Files: a read, an edit with its diff, read-before-edit and a symlink escape.
    // One path style: relative to the workspace, in pending and completed cards alike.
    expect(out).toContain('● Read src/app.js [read-app]');
    expect(out).toContain('✔ Read src/app.js [read-app] ok');
    expect(out).toMatch(/✔ Edit src\/app\.js \[edit-app\] ok/);
    expect(out).not.toMatch(/[✔✘] Read \/.*\/workspace\//);
    expect(out).toContain('+console.log(greet(process.argv[2] ?? "world"));');
    expect(out).toMatch(/✘ Edit src\/util\.js \[edit-unread\] denied FS_NOT_READ \(execute: tool-fs\/read-before-edit\)/);
    expect(out).toMatch(/\[read-escape\] error FS_SYMLINK_ESCAPE/);
    // Bash: live output lines before the completed card, then the hook's context.
    const live = out.indexOf('    │ tick 3');
    expect(live).toBeGreaterThan(-1);
    expect(out.indexOf('✔ bash [bash-ticks] ok')).toBeGreaterThan(live);
    // The hook's note follows the step that changed src/, and no other.
    const note = 'Note from .claude/hooks/src-changed.sh: run the tests after changing src/.';
    expect(out.split(note).length - 1).toBe(1);
    const step2 = out.indexOf('\n2. ');
    expect(out.indexOf(note)).toBeGreaterThan(step2);
    expect(out.indexOf(note)).toBeLessThan(out.indexOf('\n3. '));
    expect(out).toMatch(/\[bash-sleep\] error TOOL_TIMEOUT/);
    expect(out).toMatch(/\[bash-rm\] denied PRE_EXECUTE_DENIED \(pre-execute: hooks-bridge\)\n {4}rm -rf is not allowed/);
    // An approval, then a guard that overrules it.
    expect(out).toMatch(
      /\? approve bash \{"command":"git push --force origin main"\}[^\n]*\n {2}→ yes, once\n✘ bash \[bash-push\] denied GUARD_DENIED \(guard: demo\/no-force-push\)/,
    );
    // Code Mode: the program's text first, then its four sub-calls, and the program's text is not repeated.
    const program = out.indexOf('const todos = await tools.grep');
    expect(program).toBeGreaterThan(out.indexOf('● Run code [code-summary]'));
    expect(program).toBeLessThan(out.indexOf('[code-summary:code:0]'));
    expect(out.split('const todos = await tools.grep').length - 1).toBe(1);
    // Code Mode: four sub-calls and a summary; a forbidden write caught by the program.
    expect(out).toContain('[code-summary:code:3] ok');
    expect(out).toContain('returned: {"files":{"src/app.js":4,"src/util.js":4,"src/math.js":2}');
    expect(out).toContain('console: write refused: PRE_EXECUTE_DENIED');
    // A non-zero exit is a failure on the card, though the outcome stays ok for the model.
    if (bwrapWorks(out)) {
      expect(out).toMatch(/\/etc\/dsh-demo: Read-only file system/);
      expect(out).toContain('✘ bash [bash-etc] exit 1 (execute)');
    } else expect(out).toContain('skipped: without bubblewrap');
    // The todo list on its card; a skill loaded, its bundled file read and kept read-only.
    expect(out).toMatch(
      /✔ Update todos \[todo\] ok[^\n]*\n {4}- \[x\] Take the name from the command line\n {4}- \[~\] Writing the release notes\n {4}- \[ \] Run the tests/,
    );
    expect(out).toMatch(/✔ Load skill release-notes \[skill-load\] ok[^\n]*\n {4}template\.md/);
    expect(out).toMatch(/✔ Read \.claude\/skills\/release-notes\/template\.md \[skill-read\] ok/);
    expect(out).toMatch(/\[skill-write\] error FS_READ_ONLY_ROOT/);
    // MCP over stdio: allowed by one rule, denied by another, both through the permissions plugin.
    expect(out).toMatch(/✔ notes: list_notes \[mcp-list\] ok[^\n]*\n[^\n]*1\. Buy milk/);
    expect(out).toMatch(
      /✘ notes: delete_notes \[mcp-delete\] denied PRE_EXECUTE_DENIED \(pre-execute: permissions\)\n[^\n]*deny rule "mcp__notes__delete_notes"/,
    );
    // The subagent's calls pass the same hook: its rm -rf is blocked, and it answers.
    expect(out).toMatch(/✔ Read README\.md \[task:agent:0\] ok/);
    expect(out).toMatch(/✘ bash \[task:agent:1\] denied PRE_EXECUTE_DENIED \(pre-execute: hooks-bridge\)\n {4}rm -rf is not allowed/);
    expect(out).toMatch(/✔ Subagent reviewer \[task\] ok[^\n]*\n {4}The README explains how to run the greeter/);
    // web_fetch of the demo's own page: asked, approved, the article as Markdown without the navigation.
    expect(out).toMatch(/\? approve web_fetch \{"url":"http:\/\/127\.0\.0\.1:\d+\/news\/greeter-2"\}/);
    expect(out).toContain('## Greeter 2.0 is out');
    expect(out).not.toContain('Blog');

    const logPath = /Session log \(JSONL, (\d+) events\): (\S+)\n.*dsh log (\S+)\n$/.exec(out);
    expect(logPath).not.toBeNull();
    const [, count, path, pointed] = logPath as RegExpExecArray;
    expect(pointed).toBe(path);
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
    // The approval that the guard overruled is in the log: asked, answered, then the result.
    const push = events.filter((e) => e.call === 'bash-push').map((e) => e.type);
    expect(push.indexOf('approval/request')).toBeGreaterThan(push.indexOf('tool/call'));
    expect(push.indexOf('approval/answer')).toBeGreaterThan(push.indexOf('approval/request'));
    expect(push.indexOf('tool/result')).toBeGreaterThan(push.indexOf('approval/answer'));
    // The subagent is logged as such, its calls tied to the task call, and the plugins' own events are there.
    const types = new Set(events.map((e) => e.type));
    for (const type of ['todo/write', 'skill/loaded', 'subagent/start', 'subagent/end', 'agent/turn']) expect(types).toContain(type);
    const task = events.filter((e) => e.call === 'task').map((e) => e.type);
    expect(task.indexOf('subagent/start')).toBeLessThan(task.indexOf('subagent/end'));
    expect(task.indexOf('subagent/end')).toBeLessThan(task.indexOf('tool/result'));

    // dsh log groups the subagent's calls and turns under the task call.
    const story = await runDsh(['log', path as string], { cwd: home, home });
    expect(story.code).toBe(0);
    expect(story.stdout).toMatch(
      /✔ task \[task\] ok[^\n]*\n(?: {4}·[^\n]*\n)*? {4}· subagent reviewer started \(depth 1, 2 tools, code definition\): review the project\n {4}· subagent's model turn \(under task\) 1/,
    );
    expect(story.stdout).toContain('· subagent reviewer ended ok: stop end, 2 turns, 2 calls');
    expect(story.stdout).toMatch(/\n {4}✘ bash \[task:agent:1\] denied PRE_EXECUTE_DENIED/);
    expect(story.stdout).toContain('· skill loaded: release-notes');
    expect(story.stdout).toContain('· todo list (3):');
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

  it('ends with a dsh log command that runs where the demo was started: pnpm dsh in the clone, dsh elsewhere', async () => {
    const home = scratchDir();
    const viaPnpm = { npm_config_user_agent: 'pnpm/12.23.0 npm/? node/v20.19.0 linux x64', npm_lifecycle_event: 'demo' };
    const clone = await runDsh(['demo', '--no-sandbox'], { cwd: home, home, env: viaPnpm });
    expect(clone.code).toBe(0);
    expect(clone.stdout).toMatch(/Read it as the story of the session: pnpm dsh log \S+\n$/);
    const installed = await runDsh(['demo', '--no-sandbox'], {
      cwd: home,
      home,
      env: { npm_config_user_agent: '', npm_lifecycle_event: '' },
    });
    expect(installed.code).toBe(0);
    expect(installed.stdout).toMatch(/Read it as the story of the session: dsh log \S+\n$/);
  }, 240_000);
});
