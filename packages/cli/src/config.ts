import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from '@deepseek-ai/dsh-core';
import { parseJsonText } from '@deepseek-ai/dsh-rules';
import { CliError, CliErrorCode } from './errors.js';

/** Options of one plugin as written in the file (checked by the plugin's own factory), or `false` to leave it out. */
const pluginEntry = z.union([z.literal(false), z.record(z.string(), z.unknown())]);

/**
 * The plugins `dsh` can configure, by the name of their factory, in the order they are registered:
 * policies first, tools, then the plugins that read the tools (hooks, permissions, Code Mode).
 */
export const pluginKeys = [
  'otel',
  'timeoutPolicy',
  'retryPolicy',
  'toolFs',
  'toolBash',
  'toolTodo',
  'toolWeb',
  'toolSkill',
  'mcp',
  'toolSubagent',
  'hooksBridge',
  'permissions',
  'codeMode',
] as const;

/** The key of one configurable plugin in `dsh.config.json`. */
export type PluginKey = (typeof pluginKeys)[number];

/**
 * The zod schema of `dsh.config.json`. Every key is optional; plugin options
 * are passed unchanged to the plugin's factory, which validates them.
 */
export const dshConfigSchema = z.strictObject({
  /** A JSON Schema URL for editors; ignored. */
  $schema: z.string().optional(),
  /** The workspace the tools work in, relative to the file: its directory by default. */
  workspace: z.string().min(1).optional(),
  /** The host's default decision before any tap: `ask` by default. */
  defaultDecision: z.enum(['allow', 'deny', 'ask']).optional(),
  /** How `dsh replay` answers a call left at `ask`: `allow` (as if the user said yes once) by default. */
  approval: z.enum(['allow', 'deny']).optional(),
  /** Per plugin: its options, or `false` to leave it out. Absent plugins are used with their defaults. */
  plugins: z
    .strictObject(
      Object.fromEntries(pluginKeys.map((k) => [k, pluginEntry.optional()])) as Record<PluginKey, z.ZodOptional<typeof pluginEntry>>,
    )
    .optional(),
});

/** `dsh.config.json` as written. */
export type DshConfig = z.infer<typeof dshConfigSchema>;

/** A configuration with where it came from and the workspace it names. */
export interface LoadedConfig {
  readonly config: DshConfig;
  /** The file read, or undefined when none was found and the defaults apply. */
  readonly file: string | undefined;
  /** The absolute workspace directory. */
  readonly workspace: string;
}

/** The file name `dsh` looks for in the current directory. */
export const configFileName = 'dsh.config.json';

/**
 * Reads and validates the configuration: `explicit` when given (it must
 * exist), else `dsh.config.json` in `cwd` when present, else the defaults.
 * Throws `CONFIG_UNREADABLE` or `CONFIG_INVALID`, naming the file and the key.
 */
export function loadConfig(cwd: string, explicit?: string): LoadedConfig {
  const file = explicit === undefined ? resolve(cwd, configFileName) : resolve(cwd, explicit);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (explicit === undefined && code === 'ENOENT') return { config: {}, file: undefined, workspace: resolve(cwd) };
    throw new CliError(CliErrorCode.CONFIG_UNREADABLE, `${file}: cannot read the configuration: ${(error as Error).message}`);
  }
  const parsed = parseJsonText(text);
  if (!parsed.ok)
    throw new CliError(CliErrorCode.CONFIG_UNREADABLE, `${file}:${parsed.line}:${parsed.column}: not valid JSON: ${parsed.reason}`);
  const config = parseConfig(parsed.value, file);
  return { config, file, workspace: resolve(dirname(file), config.workspace ?? '.') };
}

/** Validates a configuration object; `CONFIG_INVALID` names the key (`plugins.toolBash`, `defaultDecision`, …). */
export function parseConfig(json: unknown, source = configFileName): DshConfig {
  const parsed = dshConfigSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = issue?.path.length ? issue.path.map(String).join('.') : '(top level)';
    throw new CliError(CliErrorCode.CONFIG_INVALID, `${source}: ${key}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}
