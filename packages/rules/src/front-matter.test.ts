import { describe, expect, it } from 'vitest';
import { parseFrontMatter } from './front-matter.js';

// The shape of many agent files in public `.claude/agents/` folders (and of
// Claude Code plugins): one long unquoted description with `: ` inside, and
// `\n` written as two characters where the author wanted line breaks.
const reviewerAgent = [
  '---',
  'name: pr-reviewer',
  'description: Use this agent when: the user asks for a review of a pull request. Examples:\\n\\n<example>\\nContext: The user has just pushed a branch.\\nuser: "Review PR 78"\\nassistant: "I\'ll use the pr-reviewer agent."\\n</example>',
  'tools: [Read, Grep, Glob]',
  'model: inherit',
  'color: blue',
  '---',
  '',
  'You review pull requests.',
  '',
].join('\n');

describe('parseFrontMatter', () => {
  it('splits the YAML block from the Markdown after it, past a byte-order mark', () => {
    expect(parseFrontMatter('\uFEFF---\nname: review\ntools: Read, Grep\n---\nBe thorough.\n')).toEqual({
      ok: true,
      data: { name: 'review', tools: 'Read, Grep' },
      body: 'Be thorough.\n',
    });
    expect(parseFrontMatter('---\n---\nbody')).toEqual({ ok: true, data: {}, body: 'body' });
    expect(parseFrontMatter('---\r\nname: crlf\r\ndescription: Windows line ends.\r\n---\r\nbody')).toEqual({
      ok: true,
      data: { name: 'crlf', description: 'Windows line ends.' },
      body: 'body',
    });
  });

  it('reads an unquoted description with ": " inside as Claude Code does, quoting only the line that needs it, and says so', () => {
    const fm = parseFrontMatter(reviewerAgent);
    expect(fm).toEqual({
      ok: true,
      data: {
        name: 'pr-reviewer',
        description:
          'Use this agent when: the user asks for a review of a pull request. Examples:\\n\\n<example>\\nContext: The user has just pushed a branch.\\nuser: "Review PR 78"\\nassistant: "I\'ll use the pr-reviewer agent."\\n</example>',
        // Valid YAML elsewhere keeps its meaning: the flow list is still a list.
        tools: ['Read', 'Grep', 'Glob'],
        model: 'inherit',
        color: 'blue',
      },
      body: '\nYou review pull requests.\n',
      repaired: {
        keys: ['description'],
        error: expect.stringMatching(/^Nested mappings are not allowed in compact mappings at line 2, column 14$/),
      },
    });
  });

  it('quotes each line an error points at in turn', () => {
    const fm = parseFrontMatter('---\ndescription: Lint: the staged files\npaths: **/*.{ts,tsx}\nallowed-tools: [Read]\n---\nRun it.\n');
    expect(fm).toMatchObject({
      ok: true,
      data: { description: 'Lint: the staged files', paths: '**/*.{ts,tsx}', 'allowed-tools': ['Read'] },
      repaired: { keys: ['description', 'paths'] },
    });
  });

  it('falls back to quoting every such line when the error points at none of them, as Claude Code retries', () => {
    // The unclosed list on line 2 is reported on line 3, which has nothing to quote.
    const fm = parseFrontMatter('---\nname: lint\nallowed-tools: [Bash(npx eslint:*), Read\ndescription: Lint the staged files\n---\n');
    expect(fm).toMatchObject({
      ok: true,
      data: { name: 'lint', 'allowed-tools': '[Bash(npx eslint:*), Read', description: 'Lint the staged files' },
      repaired: { keys: ['allowed-tools'], error: expect.stringContaining('at line 3, column 1') },
    });
  });

  it('keeps backslashes and double quotes of a repaired value exactly as written', () => {
    const fm = parseFrontMatter('---\ndescription: Match "a: b" and C:\\Users\\me, then *stop*\n---\n');
    expect(fm).toMatchObject({ ok: true, data: { description: 'Match "a: b" and C:\\Users\\me, then *stop*' } });
  });

  it.each([
    ['no block', '# Title\n', 'missing'],
    ['a block that never ends', '---\nname: x\n', 'unclosed'],
    ['broken YAML', '---\nname: x\ntools:\n  - Read\n - Grep\n---\n', 'yaml'],
    // Claude Code refuses these too: its quoting only helps one-line values.
    [
      'a description whose continuation lines are not indented',
      '---\nname: helper\ndescription: Use this agent for refactors. Examples:\n<example>\nContext: a large change\nuser: "Split this file"\n</example>\n---\n',
      'yaml',
    ],
    ['an unclosed quote', '---\nname: x\ndescription: "Use this when asked\n---\n', 'yaml'],
    ['a duplicate key', '---\nname: a\nname: b\n---\n', 'yaml'],
    ['a duplicate key that quoting would not fix either', '---\ndescription: a: b\ndescription: c: d\n---\n', 'yaml'],
    [
      'an alias bomb',
      `---\na: &a [x, x, x, x, x, x, x, x, x, x]\n${Array.from(
        { length: 8 },
        (_, i) =>
          `${'b'.repeat(i + 1)}: &${'b'.repeat(i + 1)} [${Array(10)
            .fill(i === 0 ? '*a' : `*${'b'.repeat(i)}`)
            .join(', ')}]`,
      ).join('\n')}\n---\n`,
      'yaml',
    ],
    ['a list instead of fields', '---\n- a\n- b\n---\n', 'not-a-map'],
  ])('refuses %s with a reason', (_name, text, kind) => {
    expect(parseFrontMatter(text)).toMatchObject({ ok: false, kind, message: expect.any(String) });
  });

  it('names the error of the file as written when a repair does not help', () => {
    const fm = parseFrontMatter('---\nname: x\ndescription: Use this: when asked\n  - and this\n---\n');
    expect(fm).toEqual({
      ok: false,
      kind: 'yaml',
      message: 'the front matter is not valid YAML: Nested mappings are not allowed in compact mappings at line 2, column 14',
    });
  });
});
