import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { definePlugin, type Host, messageOf, type Plugin } from '@deepseek-ai/dsh-core';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { FileAuthStore } from './auth-store.js';
import { type ConfigProblem, loadServerConfigs, type ResolvedServer } from './config.js';
import { McpErrorCode } from './errors.js';
import { JsonSchemaCompiler } from './json-schema-validator.js';
import type { SkippedTool } from './list-tools.js';
import { buildMcpTool, type McpToolInfo, type ToolLimits } from './mcp-tool.js';
import { type McpOptions, parseMcpOptions } from './options.js';
import { type McpServerError, type McpServerState, ServerConnection } from './server-connection.js';
import { defineServerEvents, eventStderrChars } from './server-events.js';
import type { McpServerCrash, McpStartFailure } from './server-history.js';
import { matchesAny } from './tool-names.js';
import { version } from './version.js';

/** The plugin's name, also the name of its pre-execute tap. */
export const mcpPluginName = 'mcp';

/** One server as `dsh mcp list` shows it. */
export interface McpServerStatus {
  readonly name: string;
  /** The file the entry came from, or `options`. */
  readonly source: string;
  /** Absent for an invalid entry. */
  readonly transport?: 'stdio' | 'http';
  readonly state: McpServerState;
  readonly trusted: boolean;
  /** The stdio server's pid (its process group id) while it runs. */
  readonly pid?: number;
  readonly protocolVersion?: string;
  readonly serverInfo?: { readonly name: string; readonly version: string };
  /** Registered tools, by dsh name. */
  readonly tools: readonly McpToolInfo[];
  /** Tools left out: by the allow/deny lists, or because they could not be registered. */
  readonly skipped: readonly SkippedTool[];
  /** The last thing that went wrong, whatever it was (a restart's failure replaces a crash here). */
  readonly lastError?: McpServerError;
  /** The last crash (exit or lost connection after being ready), with its exit code, signal and stderr tail. */
  readonly lastCrash?: McpServerCrash;
  /** The last failed start or restart attempt, with its process's stderr tail. */
  readonly lastStartFailure?: McpStartFailure;
  /** How many times the connection was lost after it had been ready. */
  readonly restarts: number;
  /** The tail of the current (or last) process's stderr (stdio only); a crashed process's is in `lastCrash`. */
  readonly stderrTail: string;
}

/** The `mcp` plugin, plus what an integrator needs to see and stop its servers. */
export interface McpPlugin extends Plugin {
  /** Settles when every server's first start attempt has succeeded or failed. */
  ready(): Promise<void>;
  /** Every configured server (invalid entries included), its state, tools and last error. */
  servers(): readonly McpServerStatus[];
  /** Configuration problems: bad files and bad entries, with file and key. */
  problems(): readonly ConfigProblem[];
  /** Settles when pending tool-list refreshes are done (after `tools/list_changed`). */
  settled(): Promise<void>;
  /** Starts a failed server again. */
  restart(server: string): void;
  /**
   * Stops every server for good (stdio process groups are killed) and
   * settles when they are gone. `host.close()` calls it; call it yourself to
   * stop the servers earlier. Should Node exit first, surviving groups get SIGKILL.
   */
  close(): Promise<void>;
}

interface Registered {
  readonly fingerprint: string;
  readonly info: McpToolInfo;
  readonly unregister: () => void;
}

interface ServerEntry {
  readonly connection: ServerConnection;
  readonly tools: Map<string, Registered>;
  skipped: SkippedTool[];
}

/**
 * The longest `register` waits for the servers' first start (less when `startupTimeoutMs` is less): inside the
 * host's default registration deadline of 10 s, whatever `startupTimeoutMs` a slow server needs. `ready()`
 * waits for the rest.
 */
export const maxRegisterWaitMs = 8_000;

/**
 * MCP servers' tools through the whole pipeline, named `mcp__<server>__<tool>`
 * so that permission rules and hook matchers written for Claude Code apply.
 * Servers come from `.mcp.json` / settings files and from code. Throws
 * `INVALID_OPTIONS` (naming the field) for bad options; a bad server entry is
 * reported in `servers()` and `problems()`, and the other servers still start.
 *
 * @example
 * ```ts
 * const servers = mcp({ configFiles: ['.mcp.json'], overrides: { github: { trusted: true } } });
 * await host.use(servers);
 * // … the session …
 * await servers.close();
 * ```
 */
export function mcp(options: McpOptions = {}): McpPlugin {
  const o = parseMcpOptions(options);
  const compiler = new JsonSchemaCompiler();
  const entries = new Map<string, ServerEntry>();
  const invalid: ConfigProblem[] = [];
  const askTools = new Map<string, string>();
  const limits: ToolLimits = {
    callTimeoutMs: o.callTimeoutMs,
    maxResultChars: o.maxResultChars,
    maxProgressUpdates: o.maxProgressUpdates,
    maxSchemaChars: o.maxSchemaChars,
    maxDescriptionChars: o.maxDescriptionChars,
  };
  const authStore =
    o.authStore ?? new FileAuthStore(resolve(o.cwd ?? process.cwd(), o.authFile ?? join(homedir(), '.dsh', 'mcp-auth.json')));
  const auth = { store: authStore, authorize: o.authorize, authTimeoutMs: o.authTimeoutMs };
  let problems: ConfigProblem[] = [];
  let closed = false;
  let inUse = false;

  const syncTools = (host: Host, entry: ServerEntry, tools: readonly Tool[]): void => {
    if (closed) return;
    const server = entry.connection.config;
    const skipped: SkippedTool[] = [...entry.connection.malformed];
    const wanted = new Map<string, Tool>();
    for (const tool of tools) {
      if (server.allowTools !== undefined && !matchesAny(tool.name, server.allowTools)) {
        skipped.push({ serverTool: tool.name, reason: 'not in allowTools' });
      } else if (server.denyTools !== undefined && matchesAny(tool.name, server.denyTools)) {
        skipped.push({ serverTool: tool.name, reason: 'in denyTools' });
      } else if (wanted.has(tool.name)) {
        skipped.push({ serverTool: tool.name, reason: 'the server listed this name twice' });
      } else {
        wanted.set(tool.name, tool);
      }
    }
    const keep = new Set<string>();
    for (const tool of wanted.values()) {
      const fingerprint = JSON.stringify([tool, server.trusted], (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
      const before = [...entry.tools.values()].find((r) => r.info.serverTool === tool.name);
      if (before !== undefined && before.fingerprint === fingerprint) {
        keep.add(before.info.name);
        continue;
      }
      if (before !== undefined) {
        before.unregister();
        entry.tools.delete(before.info.name);
        askTools.delete(before.info.name);
      }
      try {
        const built = buildMcpTool(entry.connection, tool, compiler, limits);
        if (keep.has(built.info.name)) throw new Error(`its name ${built.info.name} is taken by another tool of this server`);
        const unregister = host.tools.register(built.definition);
        entry.tools.set(built.info.name, { fingerprint, info: built.info, unregister });
        if (built.info.hints.ask)
          askTools.set(built.info.name, `the trusted MCP server "${server.name}" marks "${tool.name}" as destructive`);
        keep.add(built.info.name);
      } catch (error) {
        skipped.push({ serverTool: tool.name, reason: `not registered: ${messageOf(error)}` });
      }
    }
    for (const [name, registered] of entry.tools) {
      if (keep.has(name)) continue;
      registered.unregister();
      entry.tools.delete(name);
      askTools.delete(name);
    }
    entry.skipped = skipped;
  };

  const plugin: McpPlugin = {
    name: mcpPluginName,
    version,
    async register(host) {
      // One set of server processes belongs to one host; a second host needs its own mcp() plugin.
      if (inUse) throw new Error('this mcp() plugin is already registered with a host; create another for a second host');
      inUse = true;
      // The wait for the first start counts from here, not from the spawns: on a starved machine reading the
      // configuration and spawning can take seconds, which must not push register past the host's own deadline.
      let timer: NodeJS.Timeout | undefined;
      const waitEnds = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.min(o.startupTimeoutMs, maxRegisterWaitMs));
      });
      try {
        defineServerEvents(host);
        host.hooks.preExecute.tap({ name: mcpPluginName, stage: -100 }, (state) => {
          const reason = askTools.get(state.call.name);
          return reason === undefined ? undefined : { decision: 'ask', reason };
        });
        const loaded = await loadServerConfigs({
          files: o.configFiles,
          servers: o.servers,
          overrides: o.overrides,
          env: o.env ?? process.env,
          cwd: o.cwd ?? process.cwd(),
        });
        problems = loaded.problems;
        for (const problem of loaded.problems) if (problem.server !== undefined) invalid.push(problem);
        for (const server of loaded.servers) addServer(host, server);
        await Promise.race([plugin.ready(), waitEnds]);
      } finally {
        clearTimeout(timer);
      }
    },
    ready: async () => {
      await Promise.all([...entries.values()].map((e) => e.connection.firstAttempt()));
    },
    servers: () => [...[...entries.values()].map(statusOf), ...invalid.map(invalidStatus)],
    problems: () => problems,
    settled: async () => {
      await Promise.all([...entries.values()].map((e) => e.connection.settled()));
    },
    restart(server) {
      entries.get(server)?.connection.start();
    },
    async close() {
      closed = true;
      await Promise.all([...entries.values()].map((e) => e.connection.close()));
    },
  };

  function addServer(host: Host, server: ResolvedServer): void {
    const settings = {
      startupTimeoutMs: o.startupTimeoutMs,
      retry: o.retry,
      stderrBytes: o.stderrBytes,
      killGraceMs: o.killGraceMs,
      maxListPages: o.maxListPages,
      elicit: o.elicit,
      auth,
    };
    const holder: { entry?: ServerEntry } = {};
    const connection = new ServerConnection(server, settings, {
      onTools: (tools) => {
        if (holder.entry !== undefined) syncTools(host, holder.entry, tools);
      },
      onCrash: (crash, restartInMs) => {
        const data = {
          server: server.name,
          transport: server.transport,
          ...(crash.pid === undefined ? {} : { pid: crash.pid }),
          exitCode: crash.exitCode,
          signal: crash.signal,
          stderrTail: crash.stderrTail.slice(-eventStderrChars),
          callsInFlight: crash.callsInFlight,
          ...(restartInMs === undefined ? {} : { restartInMs }),
        };
        // The record in servers() stands even if the sink cannot take the event (core notes that in diagnostics).
        host.events.emit('mcp/server-exited', data).catch(() => undefined);
      },
    });
    holder.entry = { connection, tools: new Map(), skipped: [] };
    entries.set(server.name, holder.entry);
    if (!closed) connection.start();
  }

  definePlugin(plugin); // checks the shape; the returned copy would lose the methods' type
  return Object.freeze(plugin);
}

function statusOf(entry: ServerEntry): McpServerStatus {
  const c = entry.connection;
  const pid = c.pid;
  const protocolVersion = c.protocolVersion;
  const serverInfo = c.serverInfo;
  const lastError = c.lastError;
  const lastCrash = c.lastCrash;
  const lastStartFailure = c.lastStartFailure;
  return {
    name: c.config.name,
    source: c.config.source,
    transport: c.config.transport,
    state: c.state,
    trusted: c.config.trusted === true,
    ...(pid === undefined || c.state === 'closed' ? {} : { pid }),
    ...(protocolVersion === undefined ? {} : { protocolVersion }),
    ...(serverInfo === undefined ? {} : { serverInfo }),
    tools: [...entry.tools.values()].map((r) => r.info),
    skipped: entry.skipped,
    ...(lastError === undefined ? {} : { lastError }),
    ...(lastCrash === undefined ? {} : { lastCrash }),
    ...(lastStartFailure === undefined ? {} : { lastStartFailure }),
    restarts: c.restarts,
    stderrTail: c.stderrTail,
  };
}

function invalidStatus(problem: ConfigProblem): McpServerStatus {
  return {
    name: problem.server ?? '',
    source: problem.source,
    state: 'invalid',
    trusted: false,
    tools: [],
    skipped: [],
    lastError: {
      code: McpErrorCode.MCP_CONFIG_INVALID,
      message: `${problem.source}: ${problem.key}: ${problem.message}`,
      at: new Date().toISOString(),
    },
    restarts: 0,
    stderrTail: '',
  };
}
