import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parseJsonExact, z } from '@deepseek-ai/dsh-core';
import { expandEnv } from './expand-env.js';

const noNul = z.string().refine((s) => !s.includes('\0'), 'must not contain NUL bytes');
const stringMap = z.record(z.string(), noNul);
const toolList = z.array(z.string().min(1));

/** dsh's own keys on a server entry (Claude Code ignores them): trust and which tools to register. */
export const serverPolicySchema = z.object({
  /** Trust the server's annotations (read-only → parallel, idempotent → retryable, destructive → ask). Default false. */
  trusted: z.boolean().optional(),
  /** Only these of the server's tool names (`*` globs) are registered. Default: all. */
  allowTools: toolList.optional(),
  /** These of the server's tool names (`*` globs) are never registered; wins over `allowTools`. */
  denyTools: toolList.optional(),
  /** Deadline of one call to this server's tools (ms); the plugin's `callTimeoutMs` by default. */
  timeoutMs: z.number().int().positive().max(2_147_483_647).optional(),
  /** Leave the server out (Claude Code's `disabled`). */
  disabled: z.boolean().optional(),
  /**
   * The MCP spec version: `auto` negotiates it (`server/discover`, else `initialize`), a version pins it.
   * By default HTTP servers negotiate and stdio servers speak 2025-11-25 (see the README's "Spec versions").
   */
  protocol: z.enum(['auto', '2025-11-25', '2026-07-28']).optional(),
});

/** The zod schema of a stdio server entry, as in `.mcp.json`. */
export const stdioServerSchema = serverPolicySchema.extend({
  type: z.literal('stdio').optional(),
  command: noNul.pipe(z.string().min(1)),
  args: z.array(noNul).optional(),
  env: stringMap.optional(),
  cwd: noNul.pipe(z.string().min(1)).optional(),
});

/**
 * OAuth settings of an HTTP entry (all optional: discovery, dynamic registration and PKCE need none).
 * `clientId`, `clientSecret` and `privateKey` are `${VAR}`-expanded and never logged.
 */
export const oauthSchema = z.strictObject({
  /** `authorization_code` (a person authorizes, default) or `client_credentials` (an unattended agent). */
  grant: z.enum(['authorization_code', 'client_credentials']).optional(),
  /** A pre-registered client id (no dynamic registration). */
  clientId: noNul.pipe(z.string().min(1)).optional(),
  /** The pre-registered client's secret (`client_secret_basic` / `_post`). */
  clientSecret: noNul.pipe(z.string().min(1)).optional(),
  /** A PEM private key: `client_credentials` authenticated with a private-key JWT instead of a secret. */
  privateKey: noNul.pipe(z.string().min(1)).optional(),
  /** The JWT's algorithm with `privateKey`. Default ES256. */
  signingAlgorithm: z.string().min(1).optional(),
  /** Scopes asked for when neither the server's `WWW-Authenticate` nor its metadata names any. */
  scope: z.string().min(1).optional(),
  /** An https URL of this client's metadata document, used as client id where the server supports it. */
  clientMetadataUrl: z.string().min(1).optional(),
  /** Port of the loopback callback (127.0.0.1) that receives the authorization code. Default: the port registered before, else any. */
  callbackPort: z.number().int().min(0).max(65_535).optional(),
});

/** The zod schema of a Streamable HTTP server entry, as in `.mcp.json`. */
export const httpServerSchema = serverPolicySchema.extend({
  type: z.literal('http'),
  url: z.string().min(1),
  headers: stringMap.optional(),
  /** OAuth settings, or `false` to never answer a 401 with OAuth. OAuth is on by default. */
  oauth: z.union([z.literal(false), oauthSchema]).optional(),
});

/** The zod schema of one entry of `mcpServers`. */
export const serverEntrySchema = z.union([stdioServerSchema, httpServerSchema], {
  error: (issue) => {
    const type = (issue.input as { type?: unknown } | undefined)?.type;
    if (type === 'sse') return 'the "sse" transport is deprecated and not supported; use "http" (Streamable HTTP)';
    return 'expected a stdio entry { command, args?, env?, cwd? } or { type: "http", url, headers? }';
  },
});

/** A stdio server entry. */
export type StdioServerConfig = z.input<typeof stdioServerSchema>;
/** A Streamable HTTP server entry. */
export type HttpServerConfig = z.input<typeof httpServerSchema>;
/** One entry of `mcpServers`, as written in `.mcp.json` or passed in code. */
export type McpServerConfig = StdioServerConfig | HttpServerConfig;
/** OAuth settings of an HTTP entry. */
export type OAuthSettings = z.output<typeof oauthSchema>;
/** dsh's own keys of a server entry. */
export type ServerPolicy = z.input<typeof serverPolicySchema>;

/** A server entry after validation and `${VAR}` expansion. */
export type ResolvedServer =
  | (ServerPolicy & {
      readonly transport: 'stdio';
      readonly name: string;
      readonly source: string;
      readonly command: string;
      readonly args: readonly string[];
      readonly env: Readonly<Record<string, string>>;
      readonly cwd: string;
    })
  | (ServerPolicy & {
      readonly transport: 'http';
      readonly name: string;
      readonly source: string;
      readonly url: URL;
      readonly headers: Readonly<Record<string, string>>;
      /** OAuth settings (expanded); `false` when OAuth is off. */
      readonly oauth: OAuthSettings | false;
    });

/** A configuration problem: where (file and key) and what. */
export interface ConfigProblem {
  /** The file, or `options` for entries passed in code. */
  readonly source: string;
  /** The key path, such as `mcpServers.github.command`. */
  readonly key: string;
  readonly message: string;
  /** The server the problem belongs to, when there is one. */
  readonly server?: string;
}

/** A server name as it appears in tool names: Claude Code's normalisation (other characters become `_`). */
export function normaliseName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** Where entries come from, in order; a later entry of the same name replaces an earlier one. */
export interface ConfigSources {
  readonly files: readonly string[];
  readonly servers: Readonly<Record<string, unknown>>;
  readonly overrides: Readonly<Record<string, ServerPolicy>>;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

/** Reads and validates every source. A bad entry is a problem; the other servers are kept. */
export async function loadServerConfigs(
  sources: ConfigSources,
): Promise<{ readonly servers: ResolvedServer[]; readonly problems: ConfigProblem[] }> {
  const byName = new Map<string, ResolvedServer | ConfigProblem>();
  const problems: ConfigProblem[] = [];
  for (const file of sources.files) {
    const path = resolve(sources.cwd, file);
    const entries = await readConfigFile(path, problems);
    if (entries !== undefined) addEntries(byName, entries, path, 'mcpServers', dirname(path), sources);
  }
  addEntries(byName, sources.servers, 'options', 'servers', sources.cwd, sources);
  const servers: ResolvedServer[] = [];
  for (const value of byName.values()) {
    if ('message' in value) problems.push(value);
    else servers.push(value);
  }
  return { servers, problems };
}

async function readConfigFile(path: string, problems: ConfigProblem[]): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    problems.push({ source: path, key: '', message: code === 'ENOENT' ? 'the file does not exist' : `cannot read: ${String(error)}` });
    return undefined;
  }
  // An empty file declares no server (the bash sandbox's placeholder for a missing one, while a command runs).
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = parseJsonExact(text);
  } catch (error) {
    problems.push({ source: path, key: '', message: `not JSON: ${(error as Error).message}` });
    return undefined;
  }
  const servers = (parsed as { mcpServers?: unknown } | null)?.mcpServers;
  if (servers === undefined) return {};
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) {
    problems.push({ source: path, key: 'mcpServers', message: 'must be an object of server entries' });
    return undefined;
  }
  return servers as Record<string, unknown>;
}

function addEntries(
  byName: Map<string, ResolvedServer | ConfigProblem>,
  entries: Readonly<Record<string, unknown>>,
  source: string,
  prefix: string,
  baseDir: string,
  sources: ConfigSources,
): void {
  for (const [rawName, entry] of Object.entries(entries)) {
    const name = normaliseName(rawName);
    const key = `${prefix}.${rawName}`;
    const withOverride = sources.overrides[rawName] ?? sources.overrides[name];
    const merged = typeof entry === 'object' && entry !== null && withOverride !== undefined ? { ...entry, ...withOverride } : entry;
    const resolved = resolveEntry(name, merged, source, key, baseDir, sources.env);
    if (!('message' in resolved) && resolved.disabled === true) {
      byName.delete(name);
      continue;
    }
    byName.set(name, resolved);
  }
}

function resolveEntry(
  name: string,
  entry: unknown,
  source: string,
  key: string,
  baseDir: string,
  env: Readonly<Record<string, string | undefined>>,
): ResolvedServer | ConfigProblem {
  if (name === '') return { source, key, message: 'a server needs a non-empty name' };
  const parsed = serverEntrySchema.safeParse(entry);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue === undefined || issue.path.length === 0 ? key : `${key}.${issue.path.map(String).join('.')}`;
    return { source, key: at, message: issue?.message ?? 'invalid entry', server: name };
  }
  const missing = new Set<string>();
  const expand = (text: string): string => {
    const r = expandEnv(text, env);
    for (const m of r.missing) missing.add(m);
    return r.value;
  };
  const expandMap = (map: Readonly<Record<string, string>> | undefined): Record<string, string> =>
    Object.fromEntries(Object.entries(map ?? {}).map(([k, v]) => [k, expand(v)]));
  const e = parsed.data;
  const policy = {
    ...(e.trusted === undefined ? {} : { trusted: e.trusted }),
    ...(e.allowTools === undefined ? {} : { allowTools: e.allowTools }),
    ...(e.denyTools === undefined ? {} : { denyTools: e.denyTools }),
    ...(e.timeoutMs === undefined ? {} : { timeoutMs: e.timeoutMs }),
    ...(e.disabled === undefined ? {} : { disabled: e.disabled }),
    ...(e.protocol === undefined ? {} : { protocol: e.protocol }),
  };
  let server: ResolvedServer;
  if (e.type === 'http') {
    const text = expand(e.url);
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return { source, key: `${key}.url`, message: `not a URL: ${JSON.stringify(text)}`, server: name };
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return { source, key: `${key}.url`, message: 'must be an http: or https: URL', server: name };
    }
    const oauth = e.oauth === false ? false : expandOAuth(e.oauth ?? {}, expand);
    server = { ...policy, transport: 'http', name, source, url, headers: expandMap(e.headers), oauth };
  } else {
    const cwd = e.cwd === undefined ? baseDir : expand(e.cwd);
    server = {
      ...policy,
      transport: 'stdio',
      name,
      source,
      command: expand(e.command),
      args: (e.args ?? []).map(expand),
      env: expandMap(e.env),
      cwd: isAbsolute(cwd) ? cwd : resolve(baseDir, cwd),
    };
  }
  if (missing.size > 0) {
    return { source, key, message: `unset environment variables with no default: ${[...missing].join(', ')}`, server: name };
  }
  return server;
}

function expandOAuth(o: OAuthSettings, expand: (text: string) => string): OAuthSettings {
  const out: OAuthSettings = { ...o };
  if (o.clientId !== undefined) out.clientId = expand(o.clientId);
  if (o.clientSecret !== undefined) out.clientSecret = expand(o.clientSecret);
  if (o.privateKey !== undefined) out.privateKey = expand(o.privateKey);
  if (o.clientMetadataUrl !== undefined) out.clientMetadataUrl = expand(o.clientMetadataUrl);
  return out;
}
