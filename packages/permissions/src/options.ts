import { z } from '@deepseek-ai/dsh-core';
import { permissionModes } from './decide.js';
import { PermissionsError, PermissionsErrorCode } from './errors.js';

const ruleList = z.array(z.string());
const path = z.string().min(1);

/** The zod schema of `permissions()` options. */
export const permissionsOptionsSchema = z.strictObject({
  projectDir: path.optional(),
  cwd: path.optional(),
  homeDir: path.optional(),
  settingsFiles: z.union([z.literal(false), z.array(path)]).optional(),
  rules: z.strictObject({ allow: ruleList.optional(), deny: ruleList.optional(), ask: ruleList.optional() }).optional(),
  mode: z.enum(permissionModes as unknown as ['default', 'acceptEdits', 'plan', 'bypassPermissions', 'dontAsk']).optional(),
  additionalDirectories: z.array(path).optional(),
  agent: z.string().min(1).optional(),
  grantsFile: z.union([z.literal(false), path]).optional(),
  remember: z.array(z.enum(['session', 'project'])).optional(),
  readOnlyTools: z.array(z.string().min(1)).optional(),
  guard: z.boolean().optional(),
  sandboxPolicy: z.boolean().optional(),
  strict: z.boolean().optional(),
  recordDecisions: z.boolean().optional(),
  stage: z.number().finite().optional(),
  lockTimeoutMs: z.number().int().positive().optional(),
});

/**
 * Options of `permissions()`. Every one is optional; the README's options
 * table gives the defaults.
 */
export interface PermissionsOptions {
  /** The project root: `/path` rules, `.claude/settings*.json` and the grants file hang off it. `cwd` by default. */
  readonly projectDir?: string;
  /** Where `./path` and `path` rules and relative tool paths are anchored. `process.cwd()` by default. */
  readonly cwd?: string;
  /** The home directory for `~/` rules and `~/.claude/settings.json`. The user's by default. */
  readonly homeDir?: string;
  /**
   * Settings files to read, lowest precedence first; `false` reads none.
   * By default `~/.claude/settings.json`, `.claude/settings.json`, `.claude/settings.local.json`.
   */
  readonly settingsFiles?: false | readonly string[];
  /** Rules given in code, in the same shape as a settings file's `permissions` block. */
  readonly rules?: { readonly allow?: readonly string[]; readonly deny?: readonly string[]; readonly ask?: readonly string[] };
  /** The starting mode; beats `permissions.defaultMode` of the settings files. `default` otherwise. */
  readonly mode?: 'default' | 'acceptEdits' | 'plan' | 'bypassPermissions' | 'dontAsk';
  /** More directories (besides the project and `cwd`) where reads, and in `acceptEdits` edits, need no approval. */
  readonly additionalDirectories?: readonly string[];
  /** The agent these permissions belong to: project grants apply only to the agent that recorded them. `main` by default. */
  readonly agent?: string;
  /** The project grants file; `false` turns project grants off. `<projectDir>/.dsh/permission-grants.json` by default. */
  readonly grantsFile?: false | string;
  /** Which "remember" scopes the approval wrapper offers. Both by default (project only when there is a grants file). */
  readonly remember?: readonly ('session' | 'project')[];
  /** dsh tool names to treat as read-only (allowed in the workspace, allowed in plan mode). */
  readonly readOnlyTools?: readonly string[];
  /** Also register a guard that re-checks deny and ask rules on the final arguments. `true` by default. */
  readonly guard?: boolean;
  /**
   * Contribute the rules' paths and domains and the settings' `sandbox` section to
   * `host.sandboxPolicy`, so that sandboxed commands obey them. `true` by default.
   */
  readonly sandboxPolicy?: boolean;
  /** Make `register` fail on any configuration problem instead of reporting it. `false` by default. */
  readonly strict?: boolean;
  /** Log a `permissions/decision` event for every call. `true` by default. */
  readonly recordDecisions?: boolean;
  /** The stage of the `tools/pre-execute` tap; 100 by default, so hook bridges at stage 0 run first. */
  readonly stage?: number;
  /** How long to wait for the grants file's lock. 5000 ms by default. */
  readonly lockTimeoutMs?: number;
}

/** Validates options, naming the field on failure (`INVALID_OPTIONS`). */
export function parsePermissionsOptions(options: unknown): PermissionsOptions {
  const parsed = permissionsOptionsSchema.safeParse(options ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.length ? issue.path.join('.') : 'options';
    throw new PermissionsError(PermissionsErrorCode.INVALID_OPTIONS, `permissions: ${field}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data as PermissionsOptions;
}
