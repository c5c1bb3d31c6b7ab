import { describe, expect, it } from 'vitest';
import { summaryProblems } from './changeset-summary.mjs';

describe('summaryProblems', () => {
  it('accepts a sentence that says what changed for a user', () => {
    expect(summaryProblems('\nEvery plugin now reports the version in its package.json to the host.\n')).toEqual([]);
  });

  it.each(['wip', 'fix', '', 'Updates.', 'a1b2c3d4e5'])('refuses the placeholder %j', (summary) => {
    expect(summaryProblems(summary).length).toBeGreaterThan(0);
  });

  it('refuses a summary too short to say what changed', () => {
    expect(summaryProblems('Bumped deps.')).toEqual([expect.stringContaining('too short')]);
  });
});
