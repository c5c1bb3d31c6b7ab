import { describe, expect, it } from 'vitest';
import { splitToolList } from './tool-list.js';

describe('splitToolList', () => {
  it('splits on commas and whitespace outside parentheses', () => {
    expect(splitToolList('Read, Grep Bash(git log *),WebFetch(domain:example.com)')).toEqual([
      'Read',
      'Grep',
      'Bash(git log *)',
      'WebFetch(domain:example.com)',
    ]);
  });

  it('splits each string of a YAML list, and refuses anything else', () => {
    expect(splitToolList(['Read, Edit', 'Bash(npm test)'])).toEqual(['Read', 'Edit', 'Bash(npm test)']);
    expect(splitToolList([1, 'Read'])).toBeUndefined();
    expect(splitToolList({ Read: true })).toBeUndefined();
  });
});
