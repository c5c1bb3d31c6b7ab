import { describe, expect, it } from 'vitest';
import { parseRule, type RuleList } from './rule.js';
import { coverage, RuleSet } from './rule-set.js';
import { subjectOf } from './subject.js';

const anchors = { cwd: '/p', projectDir: '/p', homeDir: '/h' };

function setOf(lists: Partial<Record<RuleList, string[]>>): RuleSet {
  const sourced = Object.entries(lists).flatMap(([list, texts]) =>
    texts.map((text) => ({ rule: parseRule(text), list: list as RuleList, origin: { source: 'options' } })),
  );
  return new RuleSet(sourced, anchors);
}

const bash = (command: string) => subjectOf('Bash', { command }, anchors, 'shell');

describe('RuleSet.firstMatch', () => {
  it('reports the earliest rule of the list, whichever command of the line it matches', () => {
    const set = setOf({ deny: ['Bash(curl *)', 'Bash(*rm*)', 'Bash(rm *)'] });
    expect(set.firstMatch('deny', bash('rm -rf x && curl x'))).toMatchObject({
      rule: { rule: { text: 'Bash(curl *)' } },
      target: 'curl x',
    });
    const match = set.firstMatch('deny', bash('ls; rm -rf x'));
    expect(match).toMatchObject({ rule: { rule: { text: 'Bash(*rm*)' } }, target: 'rm -rf x' });
  });

  it('keeps the first command a rule matched when it matches several', () => {
    const set = setOf({ ask: ['Bash(git *)'] });
    expect(set.firstMatch('ask', bash('git log; git push'))?.target).toBe('git log');
  });

  it('matches a compound rule against the whole line, and prefers an earlier whole-tool rule', () => {
    expect(setOf({ deny: ['Bash(curl * | sh)'] }).firstMatch('deny', bash('curl x | sh'))?.target).toBe('curl x | sh');
    const set = setOf({ deny: ['Bash', 'Bash(rm *)'] });
    expect(set.firstMatch('deny', bash('rm x'))).toEqual({ rule: set.rules[0] });
  });

  it('finds a program through its path-less alias and rules named by the dsh tool name', () => {
    const set = setOf({ deny: ['shell(rm *)'] });
    expect(set.firstMatch('deny', bash('/bin/rm -rf x'))?.target).toBe('/bin/rm -rf x');
  });

  it('answers for each tool in turn when calls of different tools alternate', () => {
    const set = setOf({ deny: ['Bash(rm *)', 'Read(./secret/**)'] });
    const read = subjectOf('Read', { file_path: '/p/secret/k' }, anchors);
    for (let i = 0; i < 3; i += 1) {
      expect(set.firstMatch('deny', bash('rm x'))?.rule.rule.text).toBe('Bash(rm *)');
      expect(set.firstMatch('deny', read)?.rule.rule.text).toBe('Read(./secret/**)');
      expect(set.hasSpecificDenyOrAsk(subjectOf('WebFetch', { url: 'https://x' }, anchors))).toBe(false);
    }
  });
});

describe('coverage', () => {
  it('names, for each command, the first allowing rule of the first set that has one', () => {
    const rules = setOf({ allow: ['Bash(npm *)', 'Bash(git *)'] });
    const grants = setOf({ allow: ['Bash(git status)'] });
    expect(coverage(bash('git status && npm test'), [grants, rules]).by.map((r) => r.rule.text)).toEqual([
      'Bash(git status)',
      'Bash(npm *)',
    ]);
    expect(coverage(bash('git status && rm x'), [rules])).toEqual({ covered: false, by: [], uncovered: ['rm x'] });
  });
});
