import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import picomatch from 'picomatch';
import type { Anchors } from '../subject.js';

const caseInsensitive = process.platform === 'darwin' || process.platform === 'win32';

/**
 * A Bash specifier as a test on one command text: `*` matches any run of
 * characters, a trailing ` *` also matches nothing (`ls *` matches `ls`), a
 * trailing `:*` is the legacy word prefix (`npm run test:*`), `\*` is a
 * literal star. Whitespace runs count as one space.
 */
export interface CommandPattern {
  /** The literal first word, for indexing; undefined when the pattern starts with a wildcard. */
  readonly key: string | undefined;
  /** The whole pattern when it has no wildcard: compare for equality. */
  readonly exact: string | undefined;
  test(text: string): boolean;
}

export function commandPattern(specifier: string): CommandPattern {
  let body = specifier.replace(/\s+/g, ' ').trim();
  let optionalTail = false;
  if (body.endsWith(':*')) {
    body = body.slice(0, -2);
    optionalTail = true;
  } else if (body.endsWith(' *') && !body.endsWith('\\ *')) {
    body = body.slice(0, -2);
    optionalTail = true;
  }
  const segments = splitStars(body);
  const firstSpace = body.indexOf(' ');
  const firstWord = firstSpace === -1 ? body : body.slice(0, firstSpace);
  const literalFirst = !firstWord.replaceAll('\\*', '').includes('*');
  const key = literalFirst ? firstWord.replaceAll('\\*', '*') : undefined;
  if (segments.length === 1 && !optionalTail) {
    const exact = segments[0] as string;
    return { key, exact, test: (text) => text === exact };
  }
  const whole = starMatcher(segments);
  const withTail = optionalTail ? starMatcher([...segments.slice(0, -1), `${segments.at(-1) as string} `, '']) : undefined;
  // A first word ending in a wildcard (`ls*`) matches other first words, so it cannot be indexed by word.
  return {
    key: firstSpace === -1 && !optionalTail ? undefined : key,
    exact: undefined,
    test: withTail === undefined ? whole : (text) => whole(text) || withTail(text),
  };
}

/** Splits a pattern at its unescaped `*`; `\*` becomes a literal star. */
function splitStars(pattern: string): string[] {
  const segments: string[] = [];
  let literal = '';
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern[i] as string;
    if (c === '\\' && pattern[i + 1] === '*') {
      literal += '*';
      i += 1;
    } else if (c === '*') {
      segments.push(literal);
      literal = '';
    } else {
      literal += c;
    }
  }
  segments.push(literal);
  return segments;
}

/**
 * Matches a whole string against literal segments separated by `*` (any
 * run of characters): anchored first and last segments, the middle ones
 * found leftmost in order, which is exact for patterns whose only wildcard
 * is `*`. No regular expressions: it runs once per rule per command.
 */
function starMatcher(segments: readonly string[]): (text: string) => boolean {
  if (segments.length === 1) {
    const only = segments[0] as string;
    return (text) => text === only;
  }
  const first = segments[0] as string;
  const last = segments.at(-1) as string;
  const middle = segments.slice(1, -1);
  const fixed = first.length + last.length;
  // The shapes rules mostly take, tested without the general loop: `git *` and `*push*`.
  if (middle.length === 0) return (text) => text.length >= fixed && text.startsWith(first) && text.endsWith(last);
  if (middle.length === 1 && fixed === 0) {
    const only = middle[0] as string;
    return (text) => text.includes(only);
  }
  return (text) => {
    if (text.length < fixed || !text.startsWith(first) || !text.endsWith(last)) return false;
    let at = first.length;
    const end = text.length - last.length;
    for (const segment of middle) {
      const found = text.indexOf(segment, at);
      if (found === -1 || found + segment.length > end) return false;
      at = found + segment.length;
    }
    return true;
  };
}

/** The first word of a command text, as {@link CommandPattern.key} indexes it. */
export function firstWord(text: string): string {
  const space = text.indexOf(' ');
  return space === -1 ? text : text.slice(0, space);
}

/** A glob where only `*` is special, matched against a whole string. */
export function simpleGlob(pattern: string, flags = ''): (value: string) => boolean {
  const insensitive = flags.includes('i');
  const test = starMatcher(splitStars(insensitive ? pattern.toLowerCase() : pattern));
  return insensitive ? (value) => test(value.toLowerCase()) : test;
}

/**
 * A Read/Edit specifier as a test on an absolute path, following Claude
 * Code: `//abs` from the file-system root, `~/p` from the home directory,
 * `/p` from the project root, `./p` and `p` from the working directory, with
 * gitignore meaning: a pattern without a slash matches a name at any depth,
 * one with a slash is anchored, a trailing slash means a directory, and a
 * match on a directory covers everything under it.
 */
export function pathPattern(specifier: string, anchors: Anchors): (absolute: string) => boolean {
  let base: string;
  let pattern: string;
  let anchored: boolean;
  if (specifier.startsWith('//')) {
    base = '/';
    pattern = specifier.slice(2);
    anchored = true;
  } else if (specifier === '~' || specifier.startsWith('~/')) {
    base = anchors.homeDir;
    pattern = specifier === '~' ? '**' : specifier.slice(2);
    anchored = true;
  } else if (specifier.startsWith('/')) {
    base = anchors.projectDir;
    pattern = specifier.slice(1);
    anchored = true;
  } else {
    base = anchors.cwd;
    pattern = specifier;
    anchored = false;
    while (pattern.startsWith('./') || pattern.startsWith('../')) {
      if (pattern.startsWith('../')) base = resolve(base, '..');
      pattern = pattern.slice(pattern.indexOf('/') + 1);
      anchored = true;
    }
  }
  const dirOnly = pattern.endsWith('/');
  if (dirOnly) pattern = pattern.replace(/\/+$/, '');
  if (pattern.includes('/')) anchored = true;
  if (pattern === '') pattern = '**';
  // Parentheses are literal in gitignore patterns (Next.js route groups: `app/(auth)/**`); picomatch would read a group.
  pattern = pattern.replace(/(?<!\\)[()]/g, '\\$&');
  const isMatch = picomatch(pattern, { dot: true, nocase: caseInsensitive });
  const bases = [...new Set([base, realOrSelf(base)])];
  // The literal directories an anchored pattern starts with: a path outside them is rejected without globbing.
  const glob = pattern.search(/[*?[{(!+@\\]/);
  const literal = anchored ? (glob === -1 ? pattern : pattern.slice(0, glob)) : '';
  const literalDir = literal.slice(0, literal.lastIndexOf('/') + 1);
  const prefixes = bases.map((b) => (caseInsensitive ? '' : `${b === sep ? '' : b}${sep}${literalDir}`));
  return (absolute) => {
    for (let index = 0; index < bases.length; index += 1) {
      const b = bases[index] as string;
      const start = prefixes[index] as string;
      if (!absolute.startsWith(start) && !(start.length === absolute.length + 1 && start.startsWith(absolute))) continue;
      const rel = relative(b, absolute);
      if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) continue;
      const segments = rel.split(sep);
      let prefix = '';
      for (let k = 0; k < segments.length; k += 1) {
        const segment = segments[k] as string;
        prefix = k === 0 ? segment : `${prefix}/${segment}`;
        if (dirOnly && k === segments.length - 1) break;
        if (isMatch(anchored ? prefix : segment)) return true;
      }
    }
    return false;
  };
}

/** The real path of `path`, or of its deepest existing ancestor joined with the rest; `path` itself when nothing resolves. */
export function realOrSelf(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    // Missing (a file about to be written): resolve its deepest existing ancestor instead.
  }
  let head = path;
  const rest: string[] = [];
  while (!existsSync(head)) {
    const parent = dirname(head);
    if (parent === head) return path;
    rest.unshift(basename(head));
    head = parent;
  }
  try {
    const real = realpathSync.native(head);
    return rest.length === 0 ? real : join(real, ...rest);
  } catch {
    // A dangling symlink, or a component that vanished meanwhile.
    return path;
  }
}
