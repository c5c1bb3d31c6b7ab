import { DshError } from '@deepseek-ai/dsh-core';
import { describe, expect, it } from 'vitest';
import { RulesError } from './errors.js';
import { matchRule, RuleMatcher, testRule } from './match.js';
import { formatRule, kindOf, parseRule } from './rule.js';

const where = { cwd: '/p', projectDir: '/p', homeDir: '/h' };

describe('parseRule', () => {
  it('reads Tool and Tool(specifier), with Tool(*) the same as Tool', () => {
    expect(parseRule(' Bash(git *) ')).toEqual({ text: 'Bash(git *)', tool: 'Bash', specifier: 'git *', kind: 'command' });
    expect(parseRule('Bash(*)')).toEqual({ text: 'Bash(*)', tool: 'Bash' });
    expect(parseRule('Read(./src/**)')).toMatchObject({ kind: 'path' });
    expect(parseRule('WebFetch(domain:example.com)')).toMatchObject({ kind: 'domain' });
    expect(parseRule('Task(reviewer)')).toMatchObject({ kind: 'agent' });
    expect(parseRule('todo(ship *)')).toMatchObject({ kind: 'generic' });
  });

  it('accepts MCP names with a wildcard after the server, and no wildcard elsewhere', () => {
    expect(parseRule('mcp__github')).toEqual({ text: 'mcp__github', tool: 'mcp__github' });
    expect(parseRule('mcp__github__*').tool).toBe('mcp__github__*');
    expect(() => parseRule('Ba*sh')).toThrow(/may only hold "\*" after "mcp__<server>__"/);
    expect(() => parseRule('mcp__git hub')).toThrow(/not an MCP tool name/);
  });

  it.each([
    ['', 'the rule is empty'],
    ['Bash(git *', 'must end with ")"'],
    ['Bash()', 'has an empty specifier'],
    ['(x)', 'names no tool'],
    ['WebFetch(example.com)', 'take "domain:<host>"'],
    ['Bash(npm run test:* --watch)', 'may only end a Bash rule'],
    ['Bad name', 'is not a tool name'],
  ])('refuses %j with a RulesError that says why (%s)', (text, why) => {
    let thrown: unknown;
    try {
      parseRule(text);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RulesError);
    expect(thrown).toBeInstanceOf(DshError);
    expect(thrown).toMatchObject({ code: 'INVALID_RULE', rule: text.trim() === '' ? text : expect.any(String) });
    expect((thrown as Error).message).toContain(why);
  });

  it('refuses what is not a string', () => {
    expect(() => parseRule(null as unknown as string)).toThrow(expect.objectContaining({ code: 'INVALID_RULE' }));
  });
});

describe('formatRule and kindOf', () => {
  it('formats rules for settings files', () => {
    expect(formatRule('Bash', 'git status')).toBe('Bash(git status)');
    expect(formatRule('Bash', '*')).toBe('Bash');
    expect(formatRule('Read')).toBe('Read');
  });
  it('reads each Claude Code tool name the way rules do', () => {
    expect(['Bash', 'Edit', 'Write', 'Grep', 'WebFetch', 'Agent', 'mcp__x__y'].map(kindOf)).toEqual([
      'command',
      'path',
      'path',
      'path',
      'domain',
      'agent',
      'generic',
    ]);
  });
});

describe('MCP tool names', () => {
  const call = ['mcp__github__create_issue', { title: 'bug', body: 'x' }] as const;
  it.each([
    ['mcp__github', true],
    ['mcp__github__*', true],
    ['mcp__github__create*', true],
    ['mcp__github__create_issue', true],
    ['mcp__*', true],
    ['mcp__github__get*', false],
    ['mcp__git', false],
    ['mcp__gitlab', false],
    ['mcp__github__create_issue_comment', false],
  ])('%s applies to mcp__github__create_issue: %s', (rule, applies) => {
    expect(matchRule(rule, ...call, where)).toBe(applies);
  });
  it('matches an MCP specifier against the string arguments', () => {
    expect(matchRule('mcp__github__create_issue(bug)', ...call, where)).toBe(true);
    expect(matchRule('mcp__github__create_issue(feature)', ...call, where)).toBe(false);
  });
});

describe('testRule', () => {
  it('says whether the rule names the tool, matches, and what it could not read', () => {
    expect(testRule('Bash(rm *)', 'Read', { file_path: '/p/a' }, where)).toEqual({
      namesTool: false,
      matches: false,
      unreadable: undefined,
    });
    expect(testRule('Bash(rm *)', 'Bash', { command: 'ls && rm x' }, where)).toEqual({
      namesTool: true,
      matches: true,
      unreadable: undefined,
    });
    expect(testRule('Bash', 'Bash', { command: '$X' }, where)).toEqual({ namesTool: true, matches: true, unreadable: undefined });
  });

  it.each([
    ['Bash(rm *)', 'Bash', { command: 'echo "open' }, /cannot be read statically: a double quote is not closed/],
    ['Bash(rm *)', 'Bash', { command: '$CMD -rf /' }, /the program of "\$CMD -rf \/" is not known statically/],
    ['Bash(rm *)', 'Bash', { command: 'eval "$X"' }, /not known statically/],
    ['Bash(rm *)', 'Bash', {}, /no "command"/],
    ['Edit(*.ts)', 'Edit', { content: '' }, /no file path/],
    ['WebFetch(domain:example.com)', 'WebFetch', { url: '::' }, /no "url" that parses/],
    ['Agent(reviewer)', 'Agent', { prompt: 'x' }, /no "subagent_type"/],
    ['todo(ship *)', 'todo', { n: 1 }, /no string argument/],
  ] as const)('%s on %s %j: unreadable', (rule, tool, input, why) => {
    const found = testRule(rule, tool, input, where);
    expect(found.namesTool).toBe(true);
    expect(found.matches).toBe(false);
    expect(found.unreadable).toMatch(why);
  });

  it('reads what the scanner can read: here-documents, wrappers, quotes', () => {
    expect(testRule('Bash(rm *)', 'Bash', { command: 'cat <<EOF\n$(rm x)\nEOF' }, where)).toMatchObject({ matches: true });
    expect(testRule('Bash(rm *)', 'Bash', { command: "cat <<'EOF'\nrm x\nEOF" }, where)).toEqual({
      namesTool: true,
      matches: false,
      unreadable: undefined,
    });
  });

  it('compiles once and tests many calls with RuleMatcher', () => {
    const matcher = new RuleMatcher('Edit(/src/**)', where);
    expect(matcher.rule.kind).toBe('path');
    expect(matcher.test('Edit', { file_path: '/p/src/a.ts' }).matches).toBe(true);
    expect(matcher.test('Write', { file_path: '/p/src/b.ts' }).matches).toBe(true);
    expect(matcher.test('Edit', { file_path: '/p/docs/a.md' }).matches).toBe(false);
    expect(matcher.test('edit_file', { file_path: '/p/src/a.ts' }, 'edit_file').namesTool).toBe(false);
  });
});
