import { homedir } from 'node:os';
import { loadHookConfig } from '@deepseek-ai/dsh-hooks-bridge';
import type { McpServerStatus } from '@deepseek-ai/dsh-mcp';
import { loadConfig } from '../config.js';
import { announceConfigProblems } from '../config-problems.js';
import { ExitCode } from '../exit-codes.js';
import { buildHost } from '../host-factory.js';
import type { CliIo } from '../io.js';
import { renderMcpList } from '../mcp/render-list.js';
import { type ToolPolicy, toolPolicy } from '../mcp/tool-policy.js';

/** Options of `dsh mcp list`. */
export interface McpListOptions {
  readonly config?: string;
  readonly json: boolean;
  /** Any configuration problem (a settings file skipped, a rule or hook left out) is fatal: `CONFIG_INVALID`, nothing runs. */
  readonly strict?: boolean;
}

/** One server as `dsh mcp list` reports it. */
export interface McpListServer {
  readonly name: string;
  readonly source: string;
  readonly transport: string | null;
  readonly state: string;
  readonly trusted: boolean;
  readonly pid: number | null;
  readonly protocolVersion: string | null;
  readonly serverInfo: { readonly name: string; readonly version: string } | null;
  readonly tools: readonly ({ readonly name: string; readonly serverTool: string; readonly description: string } & ToolPolicy)[];
  readonly skipped: readonly { readonly tool: string; readonly reason: string }[];
  readonly lastError: { readonly code: string; readonly message: string } | null;
  readonly stderrTail: string;
}

/** What `dsh mcp list --json` prints. */
export interface McpListReport {
  readonly configured: boolean;
  readonly servers: readonly McpListServer[];
  readonly problems: readonly { readonly source: string; readonly key: string; readonly message: string }[];
  /** The permission mode calls are decided in, when the permissions plugin is on. */
  readonly mode: string | null;
}

/**
 * `dsh mcp list`: starts the configured MCP servers (`.mcp.json`,
 * `mcpServers` of `.claude/settings.json`, `plugins.mcp` of the
 * configuration), waits for their first start, and lists each with its
 * state, its tools, and per tool the permission rules that name it, the
 * hooks whose matcher matches it and what the rules decide for it; then
 * stops them. Exits 0 whatever the servers' states: the list says them.
 */
export async function runMcpList(io: CliIo, options: McpListOptions): Promise<ExitCode> {
  const loaded = loadConfig(io.cwd, options.config);
  const built = await buildHost({
    workspace: loaded.workspace,
    config: loaded.config,
    configSource: loaded.file ?? 'defaults',
    // Nothing runs: only the tools' names and the policies that read them are needed.
    overrides: { codeMode: false, toolSubagent: false },
    strict: options.strict === true,
  });
  announceConfigProblems(io, built.configProblems);
  let report: McpListReport;
  try {
    await built.mcp?.ready();
    const bridge = loaded.config.plugins?.hooksBridge;
    const hooks =
      bridge === false
        ? []
        : loadHookConfig({
            projectDir: loaded.workspace,
            homeDir: homedir(),
            ...(bridge as Parameters<typeof loadHookConfig>[0]),
          }).hooks;
    const servers = (built.mcp?.servers() ?? []).map((server) =>
      listed(server, built.host.tools.get.bind(built.host.tools), built.permissions, hooks),
    );
    report = {
      configured: built.mcp !== undefined,
      servers,
      problems: (built.mcp?.problems() ?? []).map((p) => ({ source: p.source, key: p.key, message: p.message })),
      mode: built.permissions?.mode() ?? null,
    };
  } finally {
    await built.shutdown();
  }
  io.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : renderMcpList(report, io.style, loaded.workspace));
  return ExitCode.OK;
}

function listed(
  server: McpServerStatus,
  tool: (name: string) => Parameters<typeof toolPolicy>[0] | undefined,
  permissions: Parameters<typeof toolPolicy>[1],
  hooks: Parameters<typeof toolPolicy>[2],
): McpListServer {
  return {
    name: server.name,
    source: server.source,
    transport: server.transport ?? null,
    state: server.state,
    trusted: server.trusted,
    pid: server.pid ?? null,
    protocolVersion: server.protocolVersion ?? null,
    serverInfo: server.serverInfo ?? null,
    tools: server.tools.map((t) => {
      const definition = tool(t.name);
      const policy: ToolPolicy = definition === undefined ? { rules: [], hooks: [] } : toolPolicy(definition, permissions, hooks);
      return { name: t.name, serverTool: t.serverTool, description: t.description, ...policy };
    }),
    skipped: server.skipped.map((s) => ({ tool: s.serverTool, reason: s.reason })),
    lastError: server.lastError === undefined ? null : { code: server.lastError.code, message: server.lastError.message },
    stderrTail: server.stderrTail,
  };
}
