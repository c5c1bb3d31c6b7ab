import fc from 'fast-check';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { parseRange, satisfies } from './semver-range.js';

const part = fc.integer({ min: 0, max: 3 });
const pre = fc.constantFrom('', '-0', '-1', '-alpha', '-beta.2', '-rc.1');
const version = fc.tuple(part, part, part, pre).map(([a, b, c, p]) => `${a}.${b}.${c}${p}`);
const partial = fc.oneof(
  version,
  fc.tuple(part, part).map(([a, b]) => `${a}.${b}`),
  part.map(String),
  fc.tuple(part, fc.constantFrom('x', '*')).map(([a, w]) => `${a}.${w}`),
  fc.constant('*'),
);
const comparator = fc.tuple(fc.constantFrom('', '=', '<', '<=', '>', '>=', '^', '~'), partial).map(([op, v]) => `${op}${v}`);
const set = fc.oneof(
  fc.array(comparator, { minLength: 1, maxLength: 3 }).map((cs) => cs.join(' ')),
  fc.tuple(partial, partial).map(([a, b]) => `${a} - ${b}`),
);
const range = fc.array(set, { minLength: 1, maxLength: 3 }).map((sets) => sets.join(' || '));

describe('satisfies', () => {
  it('agrees with npm semver on generated versions and ranges', () => {
    fc.assert(
      fc.property(version, range, (v, r) => {
        expect(satisfies(v, r), `${v} in "${r}"`).toBe(semver.satisfies(v, r));
      }),
      { numRuns: 3000 },
    );
  }, 60_000);

  it.each([
    ['0.2.0', '>=0.1.0 <1.0.0', true],
    ['1.0.0', '>=0.1.0 <1.0.0', false],
    ['0.1.5', '^0.1.0', true],
    ['0.2.0', '^0.1.0', false],
    ['2.0.0-beta.1', '^1.0.0', false],
    ['1.2.3-beta.2', '>=1.2.3-beta.1', true],
  ])('%s in "%s" is %s', (v, r, expected) => {
    expect(satisfies(v, r)).toBe(expected);
  });

  it.each(['', '1.x.3', 'one', '>=1.2.3.4', '^^1'])('refuses the malformed range %j', (r) => {
    expect(r === '' ? parseRange(r) : parseRange(r)).toEqual(r === '' ? [[]] : undefined);
  });
});
