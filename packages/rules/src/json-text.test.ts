import { describe, expect, it } from 'vitest';
import { jsonSyntaxProblem, parseJsonText } from './json-text.js';

describe('parseJsonText', () => {
  it('returns the value of valid JSON', () => {
    expect(parseJsonText('{"a": [1, 2]}')).toEqual({ ok: true, value: { a: [1, 2] } });
  });

  it('names the line and column of a trailing comma', () => {
    const text = '{\n  "permissions": {\n    "deny": ["Bash(rm *)"],\n  }\n}\n';
    const result = parseJsonText(text);
    expect(result).toMatchObject({ ok: false, line: 4, column: 3 });
    if (!result.ok) expect(result.reason).not.toMatch(/position|line \d/);
  });

  it('points past the end of a text that stops early', () => {
    expect(parseJsonText('{\n  "a": [')).toMatchObject({ ok: false, line: 2, column: 9, reason: 'the text ends before the JSON does' });
  });

  it('reads Node 22 messages, which carry the line and column already, the same way', () => {
    const text = '{"a":1,\n}';
    const node22 = new SyntaxError('Expected double-quoted property name in JSON at position 8 (line 2 column 1)');
    expect(jsonSyntaxProblem(text, node22)).toEqual({ line: 2, column: 1, reason: 'Expected double-quoted property name' });
  });
});
