// The part of npm's semver range syntax a plugin uses to say which versions of another plugin it
// accepts: `1.2.3`, `=`, `<`, `<=`, `>`, `>=`, `^`, `~`, `x`/`*` wildcards, hyphen ranges,
// space-separated comparators (all must hold) and `||` (any set may hold). A version with a
// prerelease tag satisfies a set only when one of its comparators names the same
// major.minor.patch with a prerelease, as in npm. Core has no dependencies, hence this file.

type Triple = readonly [number, number, number];
interface Version {
  readonly triple: Triple;
  readonly pre: readonly (string | number)[];
}
type Operator = '<' | '<=' | '>' | '>=' | '=';
interface Comparator {
  readonly op: Operator;
  readonly version: Version;
}

const versionPattern = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;
const partialPattern = /^v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

/** Parses a full version (`1.2.3`, `1.2.3-beta.1`); undefined when it is not one. */
export function parseVersion(text: string): Version | undefined {
  const m = versionPattern.exec(text.trim());
  if (!m) return undefined;
  return { triple: [Number(m[1]), Number(m[2]), Number(m[3])], pre: prerelease(m[4]) };
}

function prerelease(text: string | undefined): (string | number)[] {
  return text === undefined ? [] : text.split('.').map((id) => (/^\d+$/.test(id) ? Number(id) : id));
}

function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) {
    const d = (a.triple[i] as number) - (b.triple[i] as number);
    if (d !== 0) return Math.sign(d);
  }
  if (a.pre.length === 0 || b.pre.length === 0) return (b.pre.length === 0 ? 0 : 1) - (a.pre.length === 0 ? 0 : 1);
  for (let i = 0; i < Math.max(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i];
    const y = b.pre[i];
    if (x === undefined || y === undefined) return x === undefined ? -1 : 1;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return Math.sign(x - y);
    if (typeof x === 'number') return -1;
    if (typeof y === 'number') return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

function holds(c: Comparator, v: Version): boolean {
  const d = compare(v, c.version);
  switch (c.op) {
    case '<':
      return d < 0;
    case '<=':
      return d <= 0;
    case '>':
      return d > 0;
    case '>=':
      return d >= 0;
    default:
      return d === 0;
  }
}

const at = (major: number, minor: number, patch: number, pre: (string | number)[] = []): Version => ({
  triple: [major, minor, patch],
  pre,
});

interface Partial {
  readonly parts: readonly (number | undefined)[];
  readonly pre: (string | number)[];
}

function parsePartial(text: string): Partial | undefined {
  const m = partialPattern.exec(text);
  if (!m) return undefined;
  const part = (s: string | undefined) => (s === undefined || /^[xX*]$/.test(s) ? undefined : Number(s));
  const parts = [part(m[1]), part(m[2]), part(m[3])];
  // `1.x.3` is not a version: a wildcard cannot be followed by a number.
  if (parts.some((p, i) => p !== undefined && parts.slice(0, i).some((q) => q === undefined))) return undefined;
  return { parts, pre: prerelease(m[4]) };
}

/** The comparators one range term stands for (`^1.2`, `>=2`, `1.x`), or undefined when malformed. */
function expand(op: string, p: Partial): Comparator[] | undefined {
  const [major, minor, patch] = p.parts;
  const full = major !== undefined && minor !== undefined && patch !== undefined;
  if (major === undefined) return op === '<' || op === '>' ? [{ op: '<', version: at(0, 0, 0, [0]) }] : [];
  const low = at(major, minor ?? 0, patch ?? 0, full ? p.pre : []);
  const nextMinor = at(major, (minor ?? 0) + 1, 0, [0]);
  const nextMajor = at(major + 1, 0, 0, [0]);
  const upper = minor === undefined ? nextMajor : patch === undefined ? nextMinor : undefined;
  switch (op) {
    case '':
    case '=':
      return upper
        ? [
            { op: '>=', version: low },
            { op: '<', version: upper },
          ]
        : [{ op: '=', version: low }];
    case '^': {
      const bound =
        major > 0 || minor === undefined
          ? nextMajor
          : (minor as number) > 0 || patch === undefined
            ? nextMinor
            : at(0, 0, (patch as number) + 1, [0]);
      return [
        { op: '>=', version: low },
        { op: '<', version: bound },
      ];
    }
    case '~':
      return [
        { op: '>=', version: low },
        { op: '<', version: minor === undefined ? nextMajor : nextMinor },
      ];
    case '>':
      // `>1` is `>=2.0.0`: the bound itself, without the `-0` that keeps prereleases out of an upper bound.
      return upper ? [{ op: '>=', version: at(...upper.triple) }] : [{ op: '>', version: low }];
    case '<=':
      return [{ op: upper ? '<' : '<=', version: upper ?? low }];
    case '<':
      return [{ op, version: full ? low : at(...low.triple, [0]) }];
    case '>=':
      return [{ op, version: low }];
    default:
      return undefined;
  }
}

/** Parses a range into sets of comparators (any set may hold); undefined when malformed. */
export function parseRange(range: string): Comparator[][] | undefined {
  const sets: Comparator[][] = [];
  for (const alternative of range.split('||')) {
    const text = alternative.trim().replace(/(<=|>=|<|>|=|\^|~)\s+/g, '$1');
    const hyphen = /^(\S+)\s+-\s+(\S+)$/.exec(text);
    if (hyphen) {
      const from = parsePartial(hyphen[1] as string);
      const to = parsePartial(hyphen[2] as string);
      const lower = from && expand('>=', from);
      const upperBound = to && expand('<=', to);
      if (!lower || !upperBound) return undefined;
      sets.push(withoutAny([...lower, ...upperBound]));
      continue;
    }
    const set: Comparator[] = [];
    for (const term of text === '' ? [] : text.split(/\s+/)) {
      const m = /^(<=|>=|<|>|=|\^|~)?(.*)$/.exec(term) as RegExpExecArray;
      const partial = parsePartial(m[2] as string);
      const comparators = partial && expand(m[1] ?? '', partial);
      if (!comparators) return undefined;
      set.push(...comparators);
    }
    sets.push(withoutAny(set));
  }
  // As npm: a set that admits any version makes the whole range `*` (so no prerelease passes by another set).
  return sets.some((set) => set.length === 0) ? [[]] : sets;
}

/** Drops `>=0.0.0`, which npm reads as "any version" (so a set of only that admits everything). */
function withoutAny(set: Comparator[]): Comparator[] {
  return set.filter((c) => !(c.op === '>=' && c.version.pre.length === 0 && sameTriple(c.version.triple, [0, 0, 0])));
}

/** Whether `version` satisfies `range` (npm semantics for the syntax above); false when either is malformed. */
export function satisfies(version: string, range: string): boolean {
  const v = parseVersion(version);
  const sets = parseRange(range);
  if (!v || !sets) return false;
  // npm's rule: a prerelease only matches a set that names a prerelease of the same major.minor.patch.
  const admitsPrerelease = (set: Comparator[]) => set.some((c) => c.version.pre.length > 0 && sameTriple(c.version.triple, v.triple));
  return sets.some((set) => set.every((c) => holds(c, v)) && (v.pre.length === 0 || admitsPrerelease(set)));
}

function sameTriple(a: Triple, b: Triple): boolean {
  return a[0] === b[0] && a[1] === b[1] && a[2] === b[2];
}
