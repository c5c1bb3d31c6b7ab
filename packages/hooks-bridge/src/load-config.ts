import { readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { claudeDisablesHooks, readClaudeHooks } from './claude-config.js';
import { readCopilotHooks } from './copilot-config.js';
import { geminiSwitches, readGeminiHooks } from './gemini-config.js';
import type { HookConfig, HookConfigProblem, HookDialect, HookSpec } from './hook-spec.js';
import { ConfigBuilder, type HookDraft, isObject } from './internal/config-builder.js';
import { readJsonFile } from './internal/read-json.js';

/** Where and what to read. Every field is optional. */
export interface LoadHookConfigOptions {
  /** The project root holding `.claude/`, `.gemini/` and `.github/hooks/`: the current directory by default. */
  readonly projectDir?: string;
  /** The user's home, for `~/.claude/settings.json` and `~/.gemini/settings.json`: `os.homedir()` by default. */
  readonly homeDir?: string;
  /** Whether to read the user's settings files besides the project's: true by default. */
  readonly userSettings?: boolean;
  /** Which dialects' files to read: all three by default. Hooks given in `hooks` are always used. */
  readonly sources?: readonly HookDialect[];
  /** Hooks given in code, in each dialect's `hooks` shape; read after every file. */
  readonly hooks?: { readonly claude?: unknown; readonly gemini?: unknown; readonly copilot?: unknown };
  /** The environment Copilot `env` values expand from: `process.env` by default. */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Reads every hook configuration this plugin understands, in configuration
 * order: Claude Code (`~/.claude/settings.json`, `.claude/settings.json`,
 * `.claude/settings.local.json`, concatenated), Gemini CLI
 * (`~/.gemini/settings.json`, `.gemini/settings.json`), Copilot CLI
 * (`.github/hooks/*.json`, by file name), then hooks given in code.
 * Never throws: an unreadable file or a bad entry becomes a problem naming
 * the file and the entry, and every other entry still loads.
 */
export function loadHookConfig(options: LoadHookConfigOptions = {}): HookConfig {
  const projectDir = resolve(options.projectDir ?? process.cwd());
  const home = options.homeDir ?? homedir();
  const sources = new Set(options.sources ?? ['claude', 'gemini', 'copilot']);
  const readUser = options.userSettings !== false;
  const display = (path: string): string => {
    const rel = relative(projectDir, path);
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
  };
  const builders: ConfigBuilder[] = [];

  if (sources.has('claude')) {
    const files = [
      ...(readUser ? [join(home, '.claude', 'settings.json')] : []),
      join(projectDir, '.claude', 'settings.json'),
      join(projectDir, '.claude', 'settings.local.json'),
    ];
    let disabled = false;
    const read: ConfigBuilder[] = [];
    for (const file of files) {
      const builder = new ConfigBuilder(display(file), 'claude');
      const settings = settingsOf(file, builder, false);
      if (settings !== undefined) {
        disabled = claudeDisablesHooks(settings) ?? disabled;
        readClaudeHooks(settings.hooks, builder);
      }
      read.push(builder);
    }
    // `disableAllHooks` from the most specific file that sets it turns off every file's hooks.
    for (const builder of read) {
      if (disabled) builder.hooks.length = 0;
      builders.push(builder);
    }
  }

  if (sources.has('gemini')) {
    const files = [...(readUser ? [join(home, '.gemini', 'settings.json')] : []), join(projectDir, '.gemini', 'settings.json')];
    let enabled = true;
    const disabledNames = new Set<string>();
    const parsed: { builder: ConfigBuilder; settings: Record<string, unknown> | undefined }[] = [];
    for (const file of files) {
      const builder = new ConfigBuilder(display(file), 'gemini');
      const settings = settingsOf(file, builder, true);
      if (settings !== undefined) {
        const switches = geminiSwitches(settings);
        enabled = switches.enabled ?? enabled;
        for (const name of switches.disabled) disabledNames.add(name);
      }
      parsed.push({ builder, settings });
    }
    for (const { builder, settings } of parsed) {
      if (settings !== undefined && enabled) readGeminiHooks(settings.hooks, builder, disabledNames);
      builders.push(builder);
    }
  }

  if (sources.has('copilot')) {
    const dir = join(projectDir, '.github', 'hooks');
    let names: string[] = [];
    try {
      names = readdirSync(dir)
        .filter((n) => n.endsWith('.json'))
        .sort();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') {
        const builder = new ConfigBuilder(display(dir), 'copilot');
        builder.problem('', `cannot list the directory: ${(error as Error).message}`);
        builders.push(builder);
      }
    }
    for (const name of names) {
      const file = join(dir, name);
      const builder = new ConfigBuilder(display(file), 'copilot');
      const settings = settingsOf(file, builder, false);
      if (settings !== undefined) readCopilotHooks(settings.hooks, builder, projectDir, options.env ?? process.env);
      builders.push(builder);
    }
  }

  const given = options.hooks ?? {};
  if (given.claude !== undefined) {
    const builder = new ConfigBuilder('options', 'claude');
    readClaudeHooks(given.claude, builder, 'hooks.claude');
    builders.push(builder);
  }
  if (given.gemini !== undefined) {
    const builder = new ConfigBuilder('options', 'gemini');
    readGeminiHooks(given.gemini, builder, new Set(), 'hooks.gemini');
    builders.push(builder);
  }
  if (given.copilot !== undefined) {
    const builder = new ConfigBuilder('options', 'copilot');
    readCopilotHooks(given.copilot, builder, projectDir, options.env ?? process.env, 'hooks.copilot');
    builders.push(builder);
  }

  const hooks: HookSpec[] = [];
  const problems: HookConfigProblem[] = [];
  for (const builder of builders) {
    for (const draft of builder.hooks) hooks.push(ordered(draft, hooks.length));
    problems.push(...builder.problems);
  }
  return { hooks, problems };
}

function ordered(draft: HookDraft, order: number): HookSpec {
  return Object.freeze({ ...draft, order });
}

function settingsOf(file: string, builder: ConfigBuilder, comments: boolean): Record<string, unknown> | undefined {
  const read = readJsonFile(file, comments);
  if (read.kind === 'absent') return undefined;
  if (read.kind === 'error') {
    builder.problem('', read.message);
    return undefined;
  }
  if (!isObject(read.value)) {
    builder.problem('', 'the file must hold a JSON object');
    return undefined;
  }
  return read.value;
}
