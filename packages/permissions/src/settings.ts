import { readFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { type Anchors, claudeDifferences, parseJsonText, type RuleList, type SourcedRule } from '@deepseek-ai/dsh-rules';
import { type PermissionMode, permissionModes } from './decide.js';
import { PermissionsError, PermissionsErrorCode } from './errors.js';
import { jsonLines } from './internal/json-lines.js';
import { parseRule } from './rules.js';
import { managedSettingsFile, type SandboxSettings, SandboxSettingsReader } from './sandbox-settings.js';

/** Rules as Claude Code's `permissions` block holds them. */
export interface PermissionRules {
  readonly allow?: readonly string[];
  readonly deny?: readonly string[];
  readonly ask?: readonly string[];
}

/**
 * Something in the configuration that could not be used, or a rule that
 * dsh reads differently from Claude Code; the rest still applies.
 */
export interface PermissionProblem {
  readonly code: string;
  readonly message: string;
  readonly file?: string;
  readonly line?: number;
  readonly rule?: string;
  /**
   * For a rule whose meaning differs from Claude Code's (codes
   * `ALLOW_TOOL_WILDCARD_SKIPPED`, `PATH_RULE_NOT_CONSULTED`,
   * `ALLOW_PATH_ANCHORED`): the Claude Code version the difference refers
   * to, and whether dsh skips the rule or applies it.
   */
  readonly difference?: { readonly claudeCode: string; readonly dsh: 'skipped' | 'applied' };
}

/** Everything read from settings files and options. */
export interface LoadedSettings {
  readonly rules: readonly SourcedRule[];
  readonly problems: readonly PermissionProblem[];
  /** `permissions.defaultMode` of the last file that sets it, and that file. */
  readonly defaultMode?: { readonly mode: PermissionMode; readonly source: string };
  readonly additionalDirectories: readonly string[];
  /** Some file sets `permissions.disableBypassPermissionsMode: "disable"`. */
  readonly bypassDisabled: boolean;
  /** The files' `sandbox` sections, merged (their problems are in `problems`). */
  readonly sandbox?: SandboxSettings;
}

const lists: readonly RuleList[] = ['deny', 'ask', 'allow'];

/** The settings files Claude Code reads, lowest precedence first: user, project, project-local, managed. */
export function defaultSettingsFiles(anchors: Anchors): string[] {
  return [
    join(anchors.homeDir, '.claude', 'settings.json'),
    join(anchors.projectDir, '.claude', 'settings.json'),
    join(anchors.projectDir, '.claude', 'settings.local.json'),
    managedSettingsFile,
  ];
}

/** A file name as users see it: relative to the project, `~/…`, or absolute. */
export function displayPath(file: string, anchors: Anchors): string {
  const inProject = relative(anchors.projectDir, file);
  if (inProject !== '' && !inProject.startsWith('..') && !isAbsolute(inProject)) return inProject;
  const inHome = relative(anchors.homeDir, file);
  if (inHome !== '' && !inHome.startsWith('..') && !isAbsolute(inHome)) return `~/${inHome}`;
  return file;
}

/**
 * Reads the `permissions` block of each settings file (a missing file is
 * skipped) and the rules given in code. Every rule, file or field that
 * cannot be used becomes a problem naming the file, line and rule; the
 * others still load.
 */
export async function loadSettings(
  files: readonly string[],
  inline: PermissionRules | undefined,
  anchors: Anchors,
): Promise<LoadedSettings> {
  const rules: SourcedRule[] = [];
  const problems: PermissionProblem[] = [];
  let defaultMode: LoadedSettings['defaultMode'];
  const additionalDirectories: string[] = [];
  let bypassDisabled = false;
  const sandbox = new SandboxSettingsReader(anchors);
  for (const file of files) {
    const shown = displayPath(file, anchors);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') {
        problems.push({
          code: PermissionsErrorCode.SETTINGS_UNREADABLE,
          message: `cannot read ${shown}: ${(error as Error).message}`,
          file,
        });
      }
      continue;
    }
    // An empty file holds no settings (the bash sandbox's placeholder for a missing one, while a command runs).
    if (text.trim() === '') continue;
    const parsed = parseJsonText(text);
    if (!parsed.ok) {
      problems.push({
        code: PermissionsErrorCode.INVALID_SETTINGS,
        message: `${shown}:${parsed.line}:${parsed.column}: not valid JSON (${parsed.reason}); none of its rules apply`,
        file,
      });
      continue;
    }
    const json = parsed.value;
    const lineOf = jsonLines(text);
    sandbox.read((json as { sandbox?: unknown } | null)?.sandbox, file, shown, lineOf);
    const block = (json as { permissions?: unknown } | null)?.permissions;
    if (block === undefined) continue;
    if (typeof block !== 'object' || block === null || Array.isArray(block)) {
      problems.push(settingsProblem(`${shown}: "permissions" must be an object`, file, lineOf(['permissions'])));
      continue;
    }
    const p = block as Record<string, unknown>;
    for (const list of lists) {
      const entries = p[list];
      if (entries === undefined) continue;
      if (!Array.isArray(entries)) {
        problems.push(settingsProblem(`${shown}: "permissions.${list}" must be an array of rules`, file, lineOf(['permissions', list])));
        continue;
      }
      entries.forEach((entry: unknown, index) => {
        const line = lineOf(['permissions', list, index]);
        const origin = line === undefined ? { source: shown, file } : { source: shown, file, line };
        addRule(rules, problems, entry, list, origin, `${shown}${line === undefined ? '' : `:${line}`}`);
      });
    }
    if (p.defaultMode !== undefined) {
      if (typeof p.defaultMode === 'string' && (permissionModes as readonly string[]).includes(p.defaultMode)) {
        defaultMode = { mode: p.defaultMode as PermissionMode, source: shown };
      } else {
        problems.push(
          settingsProblem(
            `${shown}: "permissions.defaultMode" ${JSON.stringify(p.defaultMode)} is not one of ${permissionModes.join(', ')}; it is ignored`,
            file,
            lineOf(['permissions', 'defaultMode']),
          ),
        );
      }
    }
    if (Array.isArray(p.additionalDirectories)) {
      for (const dir of p.additionalDirectories) if (typeof dir === 'string') additionalDirectories.push(expandDir(dir, anchors));
    }
    if (p.disableBypassPermissionsMode === 'disable') bypassDisabled = true;
  }
  for (const list of lists) {
    inline?.[list]?.forEach((entry, index) => {
      addRule(rules, problems, entry, list, { source: 'options' }, `options.rules.${list}[${index}]`);
    });
  }
  return {
    rules,
    problems: [...problems, ...sandbox.problems],
    sandbox: sandbox.settings(),
    ...(defaultMode === undefined ? {} : { defaultMode }),
    additionalDirectories,
    bypassDisabled,
  };
}

function addRule(
  rules: SourcedRule[],
  problems: PermissionProblem[],
  entry: unknown,
  list: RuleList,
  origin: SourcedRule['origin'],
  where: string,
): void {
  try {
    const rule = parseRule(entry as string);
    rules.push(Object.freeze({ rule, list, origin: Object.freeze(origin) }));
    // Each rule Claude Code reads differently is reported once, where it is written; the rule set applies (or skips) it.
    for (const d of claudeDifferences(rule, list)) {
      problems.push({
        code: d.code,
        message: `${where}: ${d.message}`,
        rule: rule.text,
        ...(origin.file === undefined ? {} : { file: origin.file }),
        ...(origin.line === undefined ? {} : { line: origin.line }),
        difference: { claudeCode: d.claudeCode, dsh: d.dsh },
      });
    }
  } catch (error) {
    const message = `${where}: ${(error as Error).message}; the other rules still apply`;
    const problem: PermissionProblem = {
      code: error instanceof PermissionsError ? error.code : PermissionsErrorCode.INVALID_RULE,
      message,
      rule: typeof entry === 'string' ? entry : JSON.stringify(entry),
      ...(origin.file === undefined ? {} : { file: origin.file }),
      ...(origin.line === undefined ? {} : { line: origin.line }),
    };
    problems.push(problem);
  }
}

function settingsProblem(message: string, file: string, line: number | undefined): PermissionProblem {
  return line === undefined
    ? { code: PermissionsErrorCode.INVALID_SETTINGS, message, file }
    : { code: PermissionsErrorCode.INVALID_SETTINGS, message, file, line };
}

function expandDir(dir: string, anchors: Anchors): string {
  if (dir === '~' || dir.startsWith('~/')) return resolve(anchors.homeDir, dir.slice(2));
  return resolve(anchors.projectDir, dir);
}
