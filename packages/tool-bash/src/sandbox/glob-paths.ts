import { type Dirent, lstatSync, readdirSync } from 'node:fs';
import { isAbsolute, join, normalize, sep } from 'node:path';
import type { DirectoryListings } from './directory-listings.js';

/**
 * Absolute paths and globs of the host's sandbox policy, turned into the
 * paths that exist now. Glob syntax: `*` and `?` within a name, `[…]`,
 * `{a,b}`, and `**` for any depth; dot files match. A match that is a
 * directory stands for everything under it, so a trailing `/**` adds
 * nothing and is dropped (the directory itself is then the path).
 */
export interface ExpandLimits {
  /** Directory entries looked at over all patterns of one call before giving up. */
  readonly maxEntries: number;
  /** Paths found over all patterns of one call before giving up. */
  readonly maxMatches: number;
}

/** What expanding found, or why it cannot be trusted (the call is then refused). */
export type Expanded = { readonly ok: true; readonly paths: readonly string[] } | { readonly ok: false; readonly reason: string };

/** One pattern, compiled once per policy version. */
export interface CompiledGlob {
  readonly text: string;
  /** Absolute path components; each a literal name or a matcher (`**` is `'**'`). */
  readonly segments: readonly (string | RegExp)[];
  /** Without any glob: the path itself. */
  readonly literal: boolean;
}

const globChars = /[*?[{]/;

/** Compiles a policy path; undefined when it is not absolute (a policy plugin must anchor its paths). */
export function compileGlob(text: string): CompiledGlob | undefined {
  if (!isAbsolute(text) || text.includes('\0')) return undefined;
  let trimmed = normalize(text);
  while (trimmed.endsWith(`${sep}**`) && trimmed.length > 3) trimmed = trimmed.slice(0, -3);
  if (trimmed.length > 1 && trimmed.endsWith(sep)) trimmed = trimmed.slice(0, -1);
  const parts = trimmed.split(sep).filter((p) => p !== '');
  const segments = parts.map((part) => (part === '**' ? '**' : globChars.test(part) ? segmentMatcher(part) : literalName(part)));
  return Object.freeze({ text, segments, literal: segments.every((s) => typeof s === 'string' && s !== '**') });
}

/**
 * The existing paths (or, for a literal pattern, the path itself, existing or
 * not) that `globs` name now. With `listings`, directories unchanged since an
 * earlier walk are not read again (see {@link DirectoryListings}).
 */
export function expandGlobs(globs: readonly CompiledGlob[], limits: ExpandLimits, listings?: DirectoryListings): Expanded {
  if (listings === undefined) return expandWith(globs, limits, { list, listed: () => undefined });
  listings.begin();
  try {
    return expandWith(globs, limits, { list: (dir) => listings.list(dir), listed: (dir) => listings.listed(dir) });
  } finally {
    listings.end();
  }
}

interface Lister {
  list(dir: string): readonly Dirent[];
  /** The entries of `dir` if this walk has listed it already (then a name in it needs no lookup). */
  listed(dir: string): readonly Dirent[] | undefined;
}

function expandWith(globs: readonly CompiledGlob[], limits: ExpandLimits, list: Lister): Expanded {
  const found = new Set<string>();
  const budget = { entries: limits.maxEntries, lister: list };
  for (const glob of globs) {
    if (glob.literal) {
      found.add(sep + (glob.segments as string[]).join(sep));
      continue;
    }
    const complete = walk(sep, glob.segments, 0, found, budget, limits.maxMatches);
    if (!complete) {
      return {
        ok: false,
        reason: `expanding "${glob.text}" looked at more than ${limits.maxEntries} directory entries or found more than ${limits.maxMatches} paths; narrow the pattern`,
      };
    }
  }
  return { ok: true, paths: [...found] };
}

/** Depth-first match of `segments[at…]` under `dir`; false when a limit was hit. Symlinked directories are not entered. */
function walk(
  dir: string,
  segments: readonly (string | RegExp)[],
  at: number,
  found: Set<string>,
  budget: { entries: number; readonly lister: Lister },
  maxMatches: number,
): boolean {
  if (at === segments.length) {
    // A glob names what exists; only a pattern without any glob names a path that may be missing.
    if (!exists(dir)) return true;
    found.add(dir);
    return found.size <= maxMatches;
  }
  const segment = segments[at] as string | RegExp;
  if (typeof segment === 'string' && segment !== '**') {
    const listed = at + 1 === segments.length ? budget.lister.listed(dir) : undefined;
    // The last name, in a directory this walk has listed (`**/.env`): its listing says whether it exists.
    if (listed !== undefined && !listed.some((entry) => entry.name === segment)) return true;
    return walk(join(dir, segment), segments, at + 1, found, budget, maxMatches);
  }
  const entries = budget.lister.list(dir);
  budget.entries -= entries.length;
  if (budget.entries < 0) return false;
  if (segment === '**') {
    // `**` matches no component too, then each directory below.
    if (!walk(dir, segments, at + 1, found, budget, maxMatches)) return false;
    for (const entry of entries) {
      if (entry.isDirectory() && !walk(join(dir, entry.name), segments, at, found, budget, maxMatches)) return false;
    }
    return true;
  }
  for (const entry of entries) {
    if (!segment.test(entry.name)) continue;
    if (at + 1 < segments.length && !entry.isDirectory()) continue;
    if (!walk(join(dir, entry.name), segments, at + 1, found, budget, maxMatches)) return false;
  }
  return true;
}

function exists(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

function list(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return []; // missing or not a directory: nothing matches below it
  }
}

/** One path component's glob as a regular expression. */
function segmentMatcher(part: string): RegExp {
  let source = '';
  for (let i = 0; i < part.length; i += 1) {
    const c = part[i] as string;
    if (c === '\\' && i + 1 < part.length) {
      i += 1;
      source += escapeRegExp(part[i] as string);
    } else if (c === '*') {
      source += '[^/]*';
    } else if (c === '?') {
      source += '[^/]';
    } else if (c === '[') {
      const close = part.indexOf(']', i + 2);
      if (close === -1) source += '\\[';
      else {
        const body = part
          .slice(i + 1, close)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\');
        source += `[${body}]`;
        i = close;
      }
    } else if (c === '{') {
      const close = part.indexOf('}', i);
      if (close === -1) source += '\\{';
      else {
        source += `(?:${part
          .slice(i + 1, close)
          .split(',')
          .map((alt) => segmentMatcher(alt).source.slice(1, -1))
          .join('|')})`;
        i = close;
      }
    } else source += escapeRegExp(c);
  }
  return new RegExp(`^${source}$`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function literalName(part: string): string {
  return part.replace(/\\(.)/g, '$1');
}
