import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { claudeHooks, cleanupAll, eventsOf, hostFor, ran, tempProject } from './fixtures/kit.js';
import { compileIfRule } from './if-rule.js';

afterEach(() => {
  ran.length = 0;
});
afterAll(cleanupAll);

/**
 * Lines that run `rm`, each a shape permissions' scanner reads and a hook's
 * `if: "Bash(rm *)"` must therefore see too: the same rule must mean the same
 * thing in both packages, or a blocking hook is skipped where a deny rule
 * would have applied.
 */
const runsRm: readonly string[] = [
  "cat <<\\EOF > notes.txt\ndon't forget the milk\nEOF\nrm -rf /tmp/x # that's all",
  'cat <<EOF\nnotes\nEOF\nrm -rf /tmp/x',
  "cat <<'EOF' > notes.txt\n$(not run)\nEOF\nrm -rf /tmp/x",
  'cat <<EOF\n$(rm -rf /tmp/x)\nEOF',
  'timeout 5 rm -rf /tmp/x',
  '{ rm -rf /tmp/x; }',
  'if true; then rm -rf /tmp/x; fi',
  'for f in a b; do rm -rf "$f"; done',
  "bash -c 'rm -rf /tmp/x'",
  "eval 'rm -rf /tmp/x'",
  '/bin/rm -rf /tmp/x',
  '"rm" -rf /tmp/x',
  "$'\\x72m' -rf /tmp/x",
  'ls | xargs rm -rf',
  'find . -name "*.tmp" -exec rm -f {} \\;',
  'sudo rm -rf /tmp/x',
  'nohup rm -rf /tmp/x &',
];

/** Lines the scanner cannot read, or whose program it cannot know: the hook runs (fails closed). */
const unreadable: readonly string[] = ['$CMD -rf /tmp/x', 'X=1', 'eval "$X"', 'echo "unterminated', 'cat <<EOF\nnever closed', 'ls $(('];

/** Lines that do not run `rm`: the hook is skipped. */
const noRm: readonly string[] = [
  "echo 'rm -rf /tmp/x'",
  'git commit -m "rm -rf /tmp/x"',
  "cat <<'EOF'\nrm -rf /tmp/x\nEOF",
  'rmdir x',
  'ls -la',
];

const where = { projectDir: '/p', cwd: '/p', homeDir: '/h' };

function runsFor(rule: string, tool: string, input: Record<string, unknown>): boolean {
  const compiled = compileIfRule(rule);
  if (!compiled.ok) throw new Error(compiled.message);
  return compiled.rule.test(tool, input, where);
}

describe('"if" rules read command lines with the permission scanner', () => {
  it.each(runsRm)('Bash(rm *) runs its hook for %j', (command) => {
    expect(runsFor('Bash(rm *)', 'Bash', { command })).toBe(true);
  });

  it.each(unreadable)('Bash(rm *) fails closed (runs its hook) for %j', (command) => {
    expect(runsFor('Bash(rm *)', 'Bash', { command })).toBe(true);
  });

  it.each(noRm)('Bash(rm *) skips its hook for %j', (command) => {
    expect(runsFor('Bash(rm *)', 'Bash', { command })).toBe(false);
  });

  it('runs the hook when the input lacks the field the rule reads', () => {
    expect(runsFor('Bash(rm *)', 'Bash', {})).toBe(true);
    expect(runsFor('Edit(*.ts)', 'Edit', { content: 'x' })).toBe(true);
    expect(runsFor('WebFetch(domain:example.com)', 'WebFetch', { url: 'not a url' })).toBe(true);
  });

  it('applies Edit rules to every editing tool and Read rules to every reading tool, as permissions does', () => {
    expect(runsFor('Edit(*.ts)', 'Write', { file_path: '/p/a.ts', content: '' })).toBe(true);
    expect(runsFor('Read(//etc/**)', 'Grep', { pattern: 'x', path: '/etc' })).toBe(true);
    expect(runsFor('Edit(*.ts)', 'Read', { file_path: '/p/a.ts' })).toBe(false);
  });

  it('names MCP tools by server, by wildcard and exactly', () => {
    const call = ['mcp__github__create_issue', { title: 'x' }] as const;
    expect(runsFor('mcp__github', ...call)).toBe(true);
    expect(runsFor('mcp__github__*', ...call)).toBe(true);
    expect(runsFor('mcp__github__create_issue', ...call)).toBe(true);
    expect(runsFor('mcp__github__create*', ...call)).toBe(true);
    expect(runsFor('mcp__gitlab', ...call)).toBe(false);
    expect(runsFor('mcp__github__delete*', ...call)).toBe(false);
    expect(runsFor('mcp__git', ...call)).toBe(false);
  });

  it('refuses a rule permissions would refuse, with its reason', () => {
    expect(compileIfRule('Bash(git *')).toMatchObject({ ok: false, message: expect.stringContaining('must end with ")"') });
    expect(compileIfRule('Ba*sh(git *)')).toMatchObject({ ok: false });
    expect(compileIfRule('Bash()')).toMatchObject({ ok: false });
    expect(compileIfRule(7)).toMatchObject({ ok: false });
  });
});

describe('a blocking hook with "if" on the real pipeline', () => {
  async function blockRm() {
    const project = tempProject();
    const script = project.write('.claude/hooks/no-rm.sh', '#!/bin/sh\necho "no rm here" >&2\nexit 2\n', true);
    project.settings('.claude/settings.json', claudeHooks('PreToolUse', 'Bash', [{ type: 'command', command: script, if: 'Bash(rm *)' }]));
    return hostFor(project);
  }

  it('blocks a here-document compound command that runs rm', async () => {
    const t = await blockRm();
    // The apostrophe in the quoted here-document's body is data; bash runs the rm after it.
    const command = "cat <<\\EOF > notes.txt\ndon't forget the milk\nEOF\nrm -rf /tmp/x # that's all";
    const outcome = await t.call('bash', { command });
    expect(outcome).toMatchObject({ status: 'denied', reason: 'no rm here', by: 'hooks-bridge' });
    expect(ran).toEqual([]);
  });

  it('blocks rm behind a wrapper and inside a group, and lets a quoted rm through', async () => {
    const t = await blockRm();
    expect(await t.call('bash', { command: 'timeout 5 rm -rf /tmp/x' })).toMatchObject({ status: 'denied' });
    expect(await t.call('bash', { command: 'if true; then rm -rf /tmp/x; fi' })).toMatchObject({ status: 'denied' });
    expect((await t.call('bash', { command: "echo 'rm -rf /tmp/x'" })).status).toBe('ok');
    expect(eventsOf(t, 'hook/invoked')).toHaveLength(2);
  });
});
