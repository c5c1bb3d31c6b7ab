import type { Dialect, ExternalName } from '@deepseek-ai/dsh-core';
import { z } from '@deepseek-ai/dsh-core';
import { HookErrorCode, HooksBridgeError } from './errors.js';

const externalName = z.custom<ExternalName>(
  (v) =>
    typeof v === 'object' &&
    v !== null &&
    typeof (v as ExternalName).name === 'string' &&
    typeof (v as ExternalName).toExternal === 'function' &&
    typeof (v as ExternalName).fromExternal === 'function',
  'must be { name, toExternal(args), fromExternal(input) }',
);

/** The zod schema of `hooksBridge` options. */
export const hooksBridgeOptionsSchema = z.strictObject({
  projectDir: z.string().min(1).optional(),
  homeDir: z.string().min(1).optional(),
  userSettings: z.boolean().optional(),
  sources: z.array(z.enum(['claude', 'gemini', 'copilot'])).optional(),
  hooks: z.strictObject({ claude: z.unknown().optional(), gemini: z.unknown().optional(), copilot: z.unknown().optional() }).optional(),
  strict: z.boolean().optional(),
  postBlock: z.enum(['feedback', 'withhold']).optional(),
  cwd: z.string().min(1).optional(),
  permissionMode: z.enum(['default', 'plan', 'acceptEdits', 'auto', 'dontAsk', 'bypassPermissions']).optional(),
  transcriptPath: z.string().min(1).optional(),
  env: z.record(z.string(), z.string()).optional(),
  killGraceMs: z.number().int().nonnegative().optional(),
  drainMs: z.number().int().nonnegative().optional(),
  stage: z.number().finite().optional(),
  external: z.record(z.string(), z.record(z.string(), externalName)).optional(),
  onHookRun: z.custom<(run: HookRunRecord) => void>((v) => typeof v === 'function', 'must be a function').optional(),
});

/** Options of {@link hooksBridge}. Every one is optional. */
export interface HooksBridgeOptions {
  /** The project root: `.claude/`, `.gemini/` and `.github/hooks/` are read here; `CLAUDE_PROJECT_DIR`. Default: `process.cwd()`. */
  readonly projectDir?: string;
  /** Where `~/.claude/settings.json` and `~/.gemini/settings.json` are looked for. Default: `os.homedir()`. */
  readonly homeDir?: string;
  /** Read the user's settings files besides the project's. Default: true. */
  readonly userSettings?: boolean;
  /** Which dialects' files to read. Default: all three. Hooks given in `hooks` always count. */
  readonly sources?: readonly ('claude' | 'gemini' | 'copilot')[];
  /**
   * Hooks given in code, in each dialect's own `hooks` shape (Claude's
   * `{ PreToolUse: [{ matcher, hooks: [...] }] }`, …). Validated here: a bad
   * entry throws `INVALID_OPTIONS` naming it. They come after every file in
   * configuration order and `disableAllHooks` does not turn them off.
   */
  readonly hooks?: { readonly claude?: unknown; readonly gemini?: unknown; readonly copilot?: unknown };
  /** Every failure (cannot start, timeout, bad output, bad configuration) denies the call or withholds its output. Default: false. */
  readonly strict?: boolean;
  /** What a Claude or Copilot post-tool `block` does: keep the output and add the reason (`feedback`, as Claude Code does) or replace the output with it (`withhold`). Default: `feedback`. */
  readonly postBlock?: 'feedback' | 'withhold';
  /** The `cwd` in payloads and where hooks run. Default: `projectDir`. */
  readonly cwd?: string;
  /** The `permission_mode` in Claude payloads. Default: `default`. */
  readonly permissionMode?: 'default' | 'plan' | 'acceptEdits' | 'auto' | 'dontAsk' | 'bypassPermissions';
  /** The `transcript_path` in payloads (the session's JSONL log, say). Default: null. */
  readonly transcriptPath?: string;
  /** Extra environment for every hook, over `process.env`. */
  readonly env?: Readonly<Record<string, string>>;
  /** SIGTERM-to-SIGKILL grace when a hook's group is killed. Default: 1000 ms. */
  readonly killGraceMs?: number;
  /** How long to wait for a hook's pipes after it exited before its group is killed. Default: 250 ms. */
  readonly drainMs?: number;
  /** The `stage` of the pre-execute tap (lower runs earlier). Default: 0. */
  readonly stage?: number;
  /**
   * External names for tools that do not declare them (a third-party plugin's
   * tool, say): `{ [toolName]: { claude: { name, toExternal, fromExternal } } }`.
   * Used instead of the tool's own `external` for that dialect.
   */
  readonly external?: Readonly<Record<string, Readonly<Partial<Record<Dialect, ExternalName>>>>>;
  /**
   * Called after each hook run with everything it saw and said (stdin, stdout, stderr, exit): what a
   * hook debugger (`dsh hooks check`) shows. The session log keeps only a bounded stderr excerpt.
   * A throwing observer is recorded and ignored.
   */
  readonly onHookRun?: (run: HookRunRecord) => void;
}

/** One hook run, in full, for {@link HooksBridgeOptions.onHookRun}. */
export interface HookRunRecord {
  readonly call: string;
  readonly hook: string;
  readonly event: string;
  readonly command: string;
  readonly stdin: string;
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly durationMs: number;
  /** The decision read from the hook's answer, if any (`deny`, `allow`, `ask`, `rewrite`, …). */
  readonly decision?: string;
}

/** Validates options, naming the field on failure (`INVALID_OPTIONS`). */
export function parseHooksBridgeOptions(options: unknown): HooksBridgeOptions {
  const parsed = hooksBridgeOptionsSchema.safeParse(options ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.length ? issue.path.map(String).join('.') : 'options';
    throw new HooksBridgeError(HookErrorCode.INVALID_OPTIONS, `hooksBridge: ${field}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data as HooksBridgeOptions;
}
