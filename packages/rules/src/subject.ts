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

/**
 * Builds the subject of a call given its Claude-style name and input (the
 * `tool_input` a hook would get). Splits Bash commands and resolves file
 * paths through symlinks.
 */
export function subjectOf(tool: string, input: Readonly<Record<string, unknown>>, anchors: Anchors, ownName = tool): RuleSubject {
  const category = categoryOf(tool);
  if (tool === 'Bash') {
    const command = typeof input.command === 'string' ? input.command : '';
    return { tool, ownName, category, input, command: splitCommand(command), line: collapse(command) };
  }
  if (tool === 'WebFetch') return { tool, ownName, category, input, host: hostOf(input.url) };
  const path = pathOf(tool, input, anchors);
  if (path === undefined) return { tool, ownName, category, input };
  const real = realOrSelf(path);
  return { tool, ownName, category, input, paths: real === path ? [path] : [path, real] };
}

function pathOf(tool: string, input: Readonly<Record<string, unknown>>, anchors: Anchors): string | undefined {
  const given = [input.file_path, input.notebook_path, input.path].find((p): p is string => typeof p === 'string' && p !== '');
  let path = given;
  if (path === undefined && tool === 'Glob' && typeof input.pattern === 'string' && isAbsolute(input.pattern)) {
    // An absolute glob searches from its literal prefix.
    const literal = input.pattern.split('/').filter((_, i, all) => !all.slice(0, i + 1).some((s) => /[*?[{]/.test(s)));
    path = literal.join('/') || '/';
  }
  if (path === undefined) return categoryOf(tool) === 'read' && tool !== 'Read' && tool !== 'NotebookRead' ? anchors.cwd : undefined;
  if (path === '~' || path.startsWith('~/')) path = resolve(anchors.homeDir, path.slice(2));
  return resolve(anchors.cwd, path);
}

function hostOf(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}
