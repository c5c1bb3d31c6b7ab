import { DshError, z } from '@deepseek-ai/dsh-core';
import type { McpAuthStore } from './auth-store.js';
import { serverPolicySchema } from './config.js';
import type { ElicitationHandler } from './elicitation.js';
import { McpErrorCode } from './errors.js';
import type { AuthorizationHandler } from './server-auth.js';

const maxTimerMs = 2_147_483_647;
const ms = z.number().int().positive().max(maxTimerMs);

/** The zod schema of `mcp` options. */
export const mcpOptionsSchema = z.strictObject({
  /** `.mcp.json` files or Claude Code settings files whose `mcpServers` are read, in order (relative to `cwd`). */
  configFiles: z.array(z.string().min(1)).default([]),
  /** Server entries in code, in `.mcp.json` form; they replace file entries of the same name. */
  servers: z.record(z.string(), z.unknown()).default({}),
  /** dsh keys (`trusted`, `allowTools`, `denyTools`, `timeoutMs`, `disabled`) laid over entries of the same name, wherever they come from. */
  overrides: z.record(z.string(), serverPolicySchema).default({}),
  /** Variables for `${VAR}` expansion; `process.env` by default. */
  env: z.record(z.string(), z.string().optional()).optional(),
  /** Where relative config files are found, and stdio servers from code start; `process.cwd()` by default. */
  cwd: z.string().min(1).optional(),
  /** Deadline of a server's start and handshake, and of each `tools/list` page (ms). */
  startupTimeoutMs: ms.default(8_000),
  /** Deadline of a tool call unless the entry's `timeoutMs` says otherwise (ms). The timeout policy may set a shorter one. */
  callTimeoutMs: ms.default(300_000),
  /** Characters of text and base64 data a result may hold; beyond it text is cut and binary parts are omitted. */
  maxResultChars: z.number().int().min(100).default(100_000),
  /** Progress notifications passed to `ctx.progress` per call; later ones are dropped (a flood cannot swamp the UI). */
  maxProgressUpdates: z.number().int().nonnegative().default(1_000),
  /** Bytes of each stdio server's stderr kept for diagnostics. */
  stderrBytes: z
    .number()
    .int()
    .nonnegative()
    .default(64 * 1024),
  /** Between SIGTERM and SIGKILL to a stdio server's process group on close (ms). */
  killGraceMs: z.number().int().nonnegative().max(maxTimerMs).default(2_000),
  /** Restarts after a failed start or an exit: exponential backoff from `initialDelayMs` up to `maxDelayMs`, `maxAttempts` in a row. */
  retry: z
    .strictObject({
      initialDelayMs: ms.default(500),
      maxDelayMs: ms.default(30_000),
      maxAttempts: z.number().int().positive().default(5),
    })
    .default({ initialDelayMs: 500, maxDelayMs: 30_000, maxAttempts: 5 }),
  /** `tools/list` pages read at most (a server whose cursor never ends cannot loop us). */
  maxListPages: z.number().int().positive().default(100),
  /** A tool whose input schema is longer than this (as JSON) is not registered. */
  maxSchemaChars: z
    .number()
    .int()
    .positive()
    .default(256 * 1024),
  /** Tool descriptions are cut to this many characters. */
  maxDescriptionChars: z.number().int().positive().default(8_192),
  /** Answers servers' elicitation requests (the host's UI). Without it every request is declined; nothing is ever accepted unasked. */
  elicit: z.custom<ElicitationHandler>((v) => typeof v === 'function', 'must be a function').optional(),
  /** Shows an OAuth authorization URL to the person (the host's UI). Without it a server that needs a person is `MCP_AUTH_REQUIRED`. */
  authorize: z.custom<AuthorizationHandler>((v) => typeof v === 'function', 'must be a function').optional(),
  /** How long an authorization may take, from showing the URL to the callback (ms). */
  authTimeoutMs: ms.default(300_000),
  /** The file (mode 0600) where OAuth tokens and client registrations are kept per server; `~/.dsh/mcp-auth.json` by default. */
  authFile: z.string().min(1).optional(),
  /** Keeps OAuth state elsewhere (a keychain); replaces `authFile`. */
  authStore: z
    .custom<McpAuthStore>(
      (v) =>
        typeof v === 'object' &&
        v !== null &&
        typeof (v as McpAuthStore).load === 'function' &&
        typeof (v as McpAuthStore).save === 'function',
      'must be an object with load(key) and save(key, value)',
    )
    .optional(),
});

/** Options of the `mcp` plugin. */
export type McpOptions = z.input<typeof mcpOptionsSchema>;
/** `mcp` options with every default filled in. */
export type ResolvedMcpOptions = z.output<typeof mcpOptionsSchema>;

/** Validates options, throwing `INVALID_OPTIONS` that names the field. */
export function parseMcpOptions(options: McpOptions): ResolvedMcpOptions {
  const parsed = mcpOptionsSchema.safeParse(options ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.map(String).join('.') ?? '';
  throw new DshError(McpErrorCode.INVALID_OPTIONS, `mcp options: ${field === '' ? '' : `${field}: `}${issue?.message ?? 'invalid'}`);
}
