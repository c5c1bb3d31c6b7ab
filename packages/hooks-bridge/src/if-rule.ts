import { isAbsolute, join, normalize, resolve } from 'node:path';
import { escapeRegex, pathGlobSource } from './internal/glob.js';
import { splitShellCommands } from './internal/shell-split.js';

/**
 * A Claude Code `if` condition: one permission-rule pattern such as
 * `Bash(git *)`, `Edit(*.ts)` or `WebFetch(domain:example.com)`, checked
 * against the tool's Claude name and Claude-shaped input.
 */
export interface IfRule {
  readonly text: string;
  /** True when the hook should run; unreadable input fails open (the hook runs). */
  test(toolName: string, input: Readonly<Record<string, unknown>>, where: IfRuleContext): boolean;
}

/** Where relative patterns are anchored. */
export interface IfRuleContext {
  readonly projectDir: string;
  readonly cwd: string;
  readonly homeDir: string;
}

/** What compiling an `if` gives: a rule, or the reason it is invalid. */
export type CompiledIfRule = { readonly ok: true; readonly rule: IfRule } | { readonly ok: false; readonly message: string };

const rulePattern = /^\s*([A-Za-z0-9_\-*]+)\s*(?:\(([\s\S]*)\))?\s*$/;

/** Compiles an `if` pattern; a malformed one is a configuration error. */
export function compileIfRule(text: unknown): CompiledIfRule {
  if (typeof text !== 'string') return { ok: false, message: `"if" must be a string, got ${typeof text}` };
  const m = rulePattern.exec(text);
  if (m === null) return { ok: false, message: `"if" ${JSON.stringify(text)} is not a rule like "Bash(git *)" or "Edit(*.ts)"` };
  const name = m[1] as string;
  const specifier = m[2]?.trim();
  const nameTest = new RegExp(`^${name.split('*').map(escapeRegex).join('.*')}$`);
  const rule: IfRule = {
    text,
    test(toolName, input, where) {
      if (!nameTest.test(toolName)) return false;
      if (specifier === undefined || specifier === '' || specifier === '*') return true;
      return specifierMatches(specifier, input, where);
    },
  };
  return { ok: true, rule: Object.freeze(rule) };
}

function specifierMatches(specifier: string, input: Readonly<Record<string, unknown>>, where: IfRuleContext): boolean {
  if (typeof input.command === 'string') return commandMatches(specifier, input.command);
  const path = [input.file_path, input.notebook_path, input.path].find((p): p is string => typeof p === 'string');
  if (path !== undefined) return pathMatches(specifier, path, where);
  if (typeof input.url === 'string' && specifier.startsWith('domain:')) return domainMatches(specifier.slice(7).trim(), input.url);
  // No field this rule form can be checked against: run the hook rather than skip it.
  return true;
}

function commandMatches(specifier: string, command: string): boolean {
  const commands = splitShellCommands(command);
  if (commands === undefined) return true;
  const test = commandPattern(specifier);
  return commands.some((c) => test.test(c));
}

/** `git *` matches `git` and `git status`; the legacy `npm run test:*` is a prefix; other `*` match anything. */
function commandPattern(specifier: string): RegExp {
  let body = specifier;
  let tail = '';
  if (body.endsWith(':*')) {
    body = body.slice(0, -2);
    tail = '(?:\\s.*)?';
  } else if (body.endsWith(' *')) {
    body = body.slice(0, -2);
    tail = '(?:\\s.*)?';
  }
  return new RegExp(`^${body.split('*').map(escapeRegex).join('.*')}${tail}$`, 's');
}

function pathMatches(specifier: string, path: string, where: IfRuleContext): boolean {
  const absolute = normalize(isAbsolute(path) ? path : resolve(where.cwd, path));
  let anchored: string;
  if (specifier.startsWith('//')) anchored = specifier.slice(1);
  else if (specifier.startsWith('~/')) anchored = join(where.homeDir, specifier.slice(2));
  else if (specifier.startsWith('/')) anchored = join(where.projectDir, specifier.slice(1));
  else if (specifier.startsWith('./') || specifier.includes('/')) anchored = join(where.cwd, specifier);
  else return new RegExp(`^(?:.*/)?${pathGlobSource(specifier)}$`).test(absolute);
  // join() keeps `**` and `*` intact; a trailing `/` means "everything below".
  const source = pathGlobSource(specifier.endsWith('/') ? `${anchored}/**` : anchored);
  return new RegExp(`^${source}$`).test(absolute);
}

function domainMatches(domain: string, url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return true;
  }
  if (domain.startsWith('*.')) return host.endsWith(domain.slice(1));
  return host === domain;
}
