import { describe, expect, it } from 'vitest';
import { toolNameMatcher } from './index.js';

describe('toolNameMatcher', () => {
  it('prefers an exact name, then the first matching glob, and escapes everything but *', () => {
    const m = toolNameMatcher([
      ['mcp__*', 'any mcp'],
      ['mcp__github__*', 'github'],
      ['bash', 'exact'],
      ['ba*', 'glob'],
      ['a.c', 'dot is literal'],
      ['bash', 'second exact ignored'],
    ]);
    expect(m.lookup('bash')).toBe('exact');
    expect(m.lookup('batch')).toBe('glob');
    expect(m.lookup('mcp__github__issues')).toBe('any mcp');
    expect(m.lookup('a.c')).toBe('dot is literal');
    expect(m.lookup('abc')).toBeUndefined();
    expect(m.lookup('read')).toBeUndefined();
  });
});
