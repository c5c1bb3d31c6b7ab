import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { realOrSelf } from './internal/patterns.js';
import { collapse, type SplitCommand, splitCommand } from './shell-split.js';

/**
 * What a tool does, in Claude Code's vocabulary: the modes decide by it.
 * Read rules cover every `read` tool and Edit rules every `edit` tool.
 */
export type ToolCategory = 'read' | 'edit' | 'command' | 'web' | 'other';

const categories: Readonly<Record<string, ToolCategory>> = {
  Read: 'read',
  Glob: 'read',
  Grep: 'read',
  LS: 'read',
  NotebookRead: 'read',
  Edit: 'edit',
  Write: 'edit',
  MultiEdit: 'edit',
  NotebookEdit: 'edit',
  Bash: 'command',
  WebFetch: 'web',
  WebSearch: 'web',
};

/** The category of a tool known by its Claude Code name; `other` for any other name. */
export function categoryOf(claudeName: string): ToolCategory {
  return categories[claudeName] ?? 'other';
}

/** A call as rules see it: the tool's names, its Claude-shaped input and what was read from it. */
export interface RuleSubject {
  /** The name rules use: the tool's Claude Code name when it declares one, else its dsh name. */
  readonly tool: string;
  /** The dsh tool name (rules may name it too). */
  readonly ownName: string;
  readonly category: ToolCategory;
  readonly input: Readonly<Record<string, unknown>>;
  /** For `Bash`: the command line split into its commands. */
  readonly command?: SplitCommand;
  /** For `Bash`: the whole line, whitespace collapsed. */
  readonly line?: string;
  /** For file tools: the absolute path as given and as resolved through symlinks (equal when no link is involved). */
  readonly paths?: readonly string[];
  /** For `WebFetch`: the URL's host name, lower case; `undefined` when the URL does not parse. */
  readonly host?: string | undefined;
}

/**
 * Where relative rule patterns and tool paths are anchored: `./p` and `p`
 * at `cwd`, `/p` at `projectDir`, `~/p` at `homeDir`.
 */
export interface Anchors {
  readonly cwd: string;
  readonly projectDir: string;
  readonly homeDir: string;
}

/** Where relative paths are anchored; each defaults as {@link defaultAnchors} says. */
export interface AnchorOptions {
  readonly cwd?: string;
  readonly projectDir?: string;
  readonly homeDir?: string;
}

/** Fills in anchors: `cwd` is `process.cwd()`, `projectDir` is `cwd`, `homeDir` is the user's home. */
export function defaultAnchors(options: AnchorOptions = {}): Anchors {
  const cwd = resolve(options.cwd ?? options.projectDir ?? process.cwd());
  return { cwd, projectDir: resolve(options.projectDir ?? cwd), homeDir: resolve(options.homeDir ?? homedir()) };
}

/** How {@link subjectOf} reads a call's input. */
export interface SubjectOptions {
  /**
   * The input's path was already resolved through symlinks, exactly as the tool will open it (core
   * ran the tool's `resolvePaths` before any policy saw the call): it is judged as given, without a
   * second `realpath`. A path the subject falls back to (a search tool's working directory) is still
   * resolved.
   */
  readonly pathsResolved?: boolean;
}

/**
 * Builds the subject of a call given its Claude-style name and input (the
 * `tool_input` a hook would get). Splits Bash commands and resolves file
 * paths through symlinks (unless `options.pathsResolved` says the tool did).
 */
export function subjectOf(
  tool: string,
  input: Readonly<Record<string, unknown>>,
  anchors: Anchors,
  ownName = tool,
  options?: SubjectOptions,
): RuleSubject {
  const category = categoryOf(tool);
  if (tool === 'Bash') {
    const command = typeof input.command === 'string' ? input.command : '';
    return { tool, ownName, category, input, command: splitCommand(command), line: collapse(command) };
  }
  if (tool === 'WebFetch') return { tool, ownName, category, input, host: hostOf(input.url) };
  const given = givenPath(tool, input);
  if (given === undefined) {
    if (category !== 'read' || tool === 'Read' || tool === 'NotebookRead') return { tool, ownName, category, input };
    // A search without a path searches the working directory.
    const real = realOrSelf(anchors.cwd);
    return { tool, ownName, category, input, paths: real === anchors.cwd ? [anchors.cwd] : [anchors.cwd, real] };
  }
  const path = resolve(anchors.cwd, given === '~' || given.startsWith('~/') ? resolve(anchors.homeDir, given.slice(2)) : given);
  if (options?.pathsResolved === true) return { tool, ownName, category, input, paths: [path] };
  const real = realOrSelf(path);
  return { tool, ownName, category, input, paths: real === path ? [path] : [path, real] };
}

/** The path the input names, as written; for an absolute glob without one, its literal prefix. */
function givenPath(tool: string, input: Readonly<Record<string, unknown>>): string | undefined {
  const given = [input.file_path, input.notebook_path, input.path].find((p): p is string => typeof p === 'string' && p !== '');
  if (given !== undefined || tool !== 'Glob' || typeof input.pattern !== 'string' || !isAbsolute(input.pattern)) return given;
  // An absolute glob searches from its literal prefix.
  const literal = input.pattern.split('/').filter((_, i, all) => !all.slice(0, i + 1).some((s) => /[*?[{]/.test(s)));
  return literal.join('/') || '/';
}

function hostOf(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}
