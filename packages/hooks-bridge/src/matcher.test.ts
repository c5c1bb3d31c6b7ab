import { describe, expect, it } from 'vitest';
import { compileIfRule } from './if-rule.js';
import { compileMatcher } from './matcher.js';

function matches(text: unknown, dialect: 'claude' | 'gemini' | 'copilot', names: string[]): string[] {
  const compiled = compileMatcher(text, dialect);
  if (!compiled.ok) throw new Error(compiled.message);
  return names.filter((n) => compiled.matcher.test(n));
}

const names = ['Bash', 'Edit', 'Write', 'NotebookEdit', 'mcp__memory__create', 'my-tool'];

describe('Claude Code matchers', () => {
  it('matches everything for *, empty and absent', () => {
    for (const m of ['*', '', undefined]) expect(matches(m, 'claude', names)).toEqual(names);
  });
  it('treats letters, digits, _, -, spaces, "," and "|" as exact names', () => {
    expect(matches('Edit|Write', 'claude', names)).toEqual(['Edit', 'Write']);
    expect(matches('Edit, Write', 'claude', names)).toEqual(['Edit', 'Write']);
    expect(matches('my-tool', 'claude', names)).toEqual(['my-tool']);
    expect(matches('mcp__memory', 'claude', names)).toEqual([]);
  });
  it('reads a Task matcher as the Agent tool, Task being its old name', () => {
    expect(matches('Task', 'claude', ['Agent', 'Bash'])).toEqual(['Agent']);
    expect(matches('Task|Bash', 'claude', ['Agent', 'Bash', 'Edit'])).toEqual(['Agent', 'Bash']);
  });
  it('treats anything else as an unanchored regex', () => {
    expect(matches('Edit.*', 'claude', names)).toEqual(['Edit', 'NotebookEdit']);
    expect(matches('^mcp__memory__.*', 'claude', names)).toEqual(['mcp__memory__create']);
  });
  it('refuses an invalid regex with a message instead of matching it literally', () => {
    expect(compileMatcher('Bash(', 'claude')).toMatchObject({
      ok: false,
      message: expect.stringContaining('not a valid regular expression'),
    });
    expect(compileMatcher(3, 'claude')).toMatchObject({ ok: false });
  });
  it('matches MCP tool names with mcp__.* and mcp__server__.*, never with a bare server name', () => {
    const mcp = ['mcp__github__create_issue', 'mcp__github__list_issues', 'mcp__gitlab__create_issue', 'Bash'];
    expect(matches('mcp__.*', 'claude', mcp)).toEqual(mcp.slice(0, 3));
    expect(matches('mcp__github__.*', 'claude', mcp)).toEqual(['mcp__github__create_issue', 'mcp__github__list_issues']);
    expect(matches('mcp__.*__create_issue', 'claude', mcp)).toEqual(['mcp__github__create_issue', 'mcp__gitlab__create_issue']);
    expect(matches('mcp__github__create_issue', 'claude', mcp)).toEqual(['mcp__github__create_issue']);
    expect(matches('mcp__github', 'claude', mcp)).toEqual([]);
  });
  it('uses unanchored regexes for Gemini and anchored ones for Copilot', () => {
    expect(matches('Edit', 'gemini', names)).toEqual(['Edit', 'NotebookEdit']);
    expect(matches('Edit', 'copilot', names)).toEqual(['Edit']);
  });
});

describe('"if" rules', () => {
  const where = { projectDir: '/p', cwd: '/p', homeDir: '/h' };
  const test = (rule: string, tool: string, input: Record<string, unknown>) => {
    const compiled = compileIfRule(rule);
    if (!compiled.ok) throw new Error(compiled.message);
    return compiled.rule.test(tool, input, where);
  };
  it('checks every subcommand of a Bash command, past assignments and inside substitutions', () => {
    expect(test('Bash(git *)', 'Bash', { command: 'git status' })).toBe(true);
    expect(test('Bash(git *)', 'Bash', { command: 'git' })).toBe(true);
    expect(test('Bash(git *)', 'Bash', { command: 'gitk' })).toBe(false);
    expect(test('Bash(git push *)', 'Bash', { command: 'cd x && FOO=1 BAR="a b" git push' })).toBe(true);
    expect(test('Bash(rm *)', 'Bash', { command: 'echo "$(rm -rf /)"' })).toBe(true);
    expect(test('Bash(rm *)', 'Bash', { command: 'echo `rm x`; ls' })).toBe(true);
    expect(test('Bash(rm *)', 'Bash', { command: "echo 'rm -rf /'" })).toBe(false);
    expect(test('Bash(npm run test:*)', 'Bash', { command: 'npm run test --watch' })).toBe(true);
    expect(test('Bash(git *)', 'Read', { file_path: '/p/x' })).toBe(false);
  });
  it('fails closed (runs the hook) when the command cannot be read', () => {
    expect(test('Bash(git *)', 'Bash', { command: 'echo "unterminated' })).toBe(true);
    expect(test('Bash(git *)', 'Bash', { command: 'cat <<EOF\nx' })).toBe(true);
  });
  it('reads here-documents instead of giving up on them', () => {
    expect(test('Bash(git *)', 'Bash', { command: 'cat <<EOF\nx\nEOF' })).toBe(false);
    expect(test('Bash(git *)', 'Bash', { command: 'cat <<EOF\n$(git push)\nEOF' })).toBe(true);
  });
  it('matches file paths the way permission rules do', () => {
    expect(test('Edit(*.ts)', 'Edit', { file_path: '/p/src/deep/a.ts' })).toBe(true);
    expect(test('Edit(*.ts)', 'Edit', { file_path: '/p/src/a.js' })).toBe(false);
    expect(test('Edit(/src/**)', 'Edit', { file_path: '/p/src/deep/a.ts' })).toBe(true);
    expect(test('Edit(/src/**)', 'Edit', { file_path: '/elsewhere/src/a.ts' })).toBe(false);
    expect(test('Read(//etc/*)', 'Read', { file_path: '/etc/passwd' })).toBe(true);
    expect(test('Read(~/.ssh/**)', 'Read', { file_path: '/h/.ssh/id_rsa' })).toBe(true);
    expect(test('WebFetch(domain:example.com)', 'WebFetch', { url: 'https://example.com/x' })).toBe(true);
    expect(test('WebFetch(domain:example.com)', 'WebFetch', { url: 'https://evil.com/x' })).toBe(false);
  });
  it('refuses a malformed rule', () => {
    expect(compileIfRule('Bash(git *')).toMatchObject({ ok: false });
  });
});
