import { DshError } from '@deepseek-ai/dsh-core';
import type { StreamableHTTPClientTransport as V2HttpTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  ElicitRequestSchema,
  ErrorCode,
  type Tool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { authFailure } from './auth-failure.js';
import { callError } from './call-error.js';
import type { ResolvedServer } from './config.js';
import { asV1Error, V2Client } from './connect-v2.js';
import { clientCapabilities } from './discover-probe.js';
import { answerElicitation, type ElicitationHandler } from './elicitation.js';
import { McpCallError, McpErrorCode } from './errors.js';
import { httpTransport, wasChallenged } from './http-transport.js';
import { lenientListResult, listAllTools, type SkippedTool } from './list-tools.js';
import { openSession, ProbeClosedError } from './negotiate.js';
import { type AuthSettings, ServerAuth } from './server-auth.js';
import { type McpServerCrash, type McpStartFailure, processFacts } from './server-history.js';
import { StdioTransport } from './stdio-transport.js';
import { version } from './version.js';

/** Where a server is in its life. */
export type McpServerState = 'starting' | 'ready' | 'restarting' | 'failed' | 'closed' | 'invalid';

/** The last thing that went wrong with a server. */
export interface McpServerError {
  readonly code: McpErrorCode;
  readonly message: string;
  /** When, as an ISO date. */
  readonly at: string;
}

/** How a connection behaves; all resolved from the plugin's options. */
export interface ConnectionSettings {
  readonly startupTimeoutMs: number;
  readonly retry: { readonly initialDelayMs: number; readonly maxDelayMs: number; readonly maxAttempts: number };
  readonly stderrBytes: number;
  readonly killGraceMs: number;
  readonly maxListPages: number;
  readonly elicit: ElicitationHandler | undefined;
  readonly auth: AuthSettings;
}

/** What a connection tells its owner. */
export interface ConnectionListener {
  /** The server listed its tools (after a start, or on `tools/list_changed`). */
  readonly onTools: (tools: readonly Tool[]) => void;
  /** A ready server crashed; the next start is tried in `restartInMs` (undefined: none is scheduled). */
  readonly onCrash: (crash: McpServerCrash, restartInMs: number | undefined) => void;
}

/** What a call needs besides its arguments. */
export interface CallSettings {
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly onProgress: (progress: { progress: number; total?: number | undefined; message?: string | undefined }) => void;
}

/**
 * One MCP server: its client, its transport and its life (start, list tools,
 * follow `tools/list_changed`, restart with backoff after a failure or exit,
 * close). Calls are refused with `MCP_SERVER_UNAVAILABLE` unless it is ready.
 */
export class ServerConnection {
  readonly config: ResolvedServer;
  #state: McpServerState = 'starting';
  #client: Client | V2Client | undefined;
  #transport: StdioTransport | StreamableHTTPClientTransport | V2HttpTransport | undefined;
  /** The last `server/discover` probe made this stdio server exit: starts go to `initialize` directly. */
  #skipStdioProbe = false;
  #lastStderr = '';
  #lastError: McpServerError | undefined;
  #lastCrash: McpServerCrash | undefined;
  #lastStartFailure: McpStartFailure | undefined;
  #inFlight = 0;
  #attempts = 0;
  #restarts = 0;
  #retryTimer: NodeJS.Timeout | undefined;
  #tools: readonly Tool[] = [];
  #malformed: readonly SkippedTool[] = [];
  #closing = false;
  #firstAttempt: Promise<void>;
  #settleFirst!: () => void;
  #refreshing: Promise<void> | undefined;
  #refreshAgain = false;
  #auth: ServerAuth | undefined;
  /** Authorizations asked for since the server last accepted a request: a server that keeps refusing is given up on. */
  #authorizations = 0;
  readonly #settings: ConnectionSettings;
  readonly #listener: ConnectionListener;

  constructor(config: ResolvedServer, settings: ConnectionSettings, listener: ConnectionListener) {
    this.config = config;
    this.#settings = settings;
    this.#listener = listener;
    this.#firstAttempt = new Promise((resolve) => {
      this.#settleFirst = resolve;
    });
  }

  get state(): McpServerState {
    return this.#state;
  }
  get lastError(): McpServerError | undefined {
    return this.#lastError;
  }
  /** The last crash (exit or lost connection after being ready), kept whatever the restarts that follow do. */
  get lastCrash(): McpServerCrash | undefined {
    return this.#lastCrash;
  }
  /** The last failed start attempt. */
  get lastStartFailure(): McpStartFailure | undefined {
    return this.#lastStartFailure;
  }
  get restarts(): number {
    return this.#restarts;
  }
  get tools(): readonly Tool[] {
    return this.#tools;
  }
  /** The stdio server's pid (its process group id), while it runs. */
  get pid(): number | undefined {
    return this.#transport instanceof StdioTransport ? this.#transport.pid : undefined;
  }
  /** The tail of the stdio server's stderr (of the last process, if it exited). */
  get stderrTail(): string {
    return this.#transport instanceof StdioTransport ? this.#transport.stderr.text() : this.#lastStderr;
  }
  get protocolVersion(): string | undefined {
    return this.#client instanceof V2Client ? this.#client.getNegotiatedProtocolVersion() : this.#transport?.protocolVersion;
  }
  get serverInfo(): { readonly name: string; readonly version: string } | undefined {
    const info = this.#client?.getServerVersion();
    return info === undefined ? undefined : { name: info.name, version: info.version };
  }

  /** Settles when the first start attempt has succeeded or failed. */
  firstAttempt(): Promise<void> {
    return this.#firstAttempt;
  }

  /** Starts the server (again, after `failed`). */
  start(): void {
    if (this.#closing) return;
    this.#attempts = 0;
    void this.#connect();
  }

  async #connect(): Promise<void> {
    this.#state = this.#restarts === 0 && this.#attempts === 0 ? 'starting' : 'restarting';
    this.#attempts += 1;
    let transport: StdioTransport | StreamableHTTPClientTransport;
    try {
      transport = this.#makeTransport();
    } catch (error) {
      return this.#failForGood(error instanceof DshError ? (error.code as McpErrorCode) : McpErrorCode.MCP_START_FAILED, describe(error));
    }
    this.#transport = transport;
    this.#client = undefined;
    let client: Client | V2Client;
    try {
      const session = await openSession(this.config, transport, {
        v1Client: () => {
          this.#client = this.#v1Client();
          return this.#client;
        },
        v2: { server: this.config.name, elicit: this.#settings.elicit, onToolsChanged: (c) => this.#refreshTools(c) },
        timeoutMs: this.#settings.startupTimeoutMs,
        stdioProbeTimeoutMs: this.#settings.startupTimeoutMs,
        skipStdioProbe: this.#skipStdioProbe,
      });
      client = session.client;
      this.#client = client;
      this.#transport = session.transport;
      if (this.#closing) throw new Error('closed while starting');
      this.#tools = await this.#listTools(client);
    } catch (error) {
      // A server that exits as it starts can close its pipes before its exit and last stderr reach us.
      if (transport instanceof StdioTransport && (pipesClosed(error) || error instanceof ProbeClosedError))
        await transport.endsWithin(this.#settings.killGraceMs);
      const { how: _, ...facts } = processFacts(transport); // before dropping the connection stops the process
      await this.#dropConnection(this.#client, this.#transport ?? transport);
      if (this.#closing) return this.#settleFirst();
      if (error instanceof McpCallError && error.code === McpErrorCode.MCP_PROTOCOL_UNSUPPORTED) {
        return this.#failForGood(error.code, error.message);
      }
      if (error instanceof ProbeClosedError) this.#skipStdioProbe = true;
      const pending = this.#auth?.takePendingAuthorization();
      if (pending !== undefined || authFailure(error) !== undefined || wasChallenged(transport))
        return this.#afterAuthFailure(error, transport, pending);
      const message = `server "${this.config.name}" did not start: ${describe(error)}${this.#stderrNote()}`;
      const at = new Date().toISOString();
      this.#lastStartFailure = { code: McpErrorCode.MCP_START_FAILED, message, at, ...facts, attempt: this.#attempts };
      this.#fail(McpErrorCode.MCP_START_FAILED, message);
      return;
    }
    client.onclose = () => this.#lost(client);
    this.#authorizations = 0;
    this.#state = 'ready';
    this.#attempts = 0;
    this.#listener.onTools(this.#tools);
    this.#settleFirst();
  }

  /**
   * A start that failed on the way through OAuth: when the SDK asked for a
   * person, the host is asked and the start is tried again with the code;
   * other OAuth failures are final (`failed`, no backoff: retrying cannot fix them).
   */
  async #afterAuthFailure(
    error: unknown,
    transport: StdioTransport | StreamableHTTPClientTransport,
    pending: URL | undefined,
  ): Promise<void> {
    const auth = this.#auth;
    if (auth !== undefined && pending !== undefined && transport instanceof StreamableHTTPClientTransport) {
      try {
        await this.#authorize(auth, transport, pending);
      } catch (failure) {
        const known = authFailure(failure) ?? { code: McpErrorCode.MCP_AUTH_FAILED, message: describe(failure) };
        return this.#failForGood(known.code, known.message);
      }
      if (this.#closing) return this.#settleFirst();
      this.#attempts -= 1; // authorizing is not a failed attempt
      return this.#connect();
    }
    const known = authFailure(error) ?? { code: McpErrorCode.MCP_AUTH_FAILED, message: describe(error) };
    this.#failForGood(known.code, `server "${this.config.name}" did not start: ${known.message}`);
  }

  /** One authorization by a person (at most {@link maxAuthorizations} in a row), then the code is exchanged for tokens. */
  async #authorize(auth: ServerAuth, transport: StreamableHTTPClientTransport, pending: URL): Promise<void> {
    if (this.#authorizations >= maxAuthorizations) {
      throw new McpCallError(
        McpErrorCode.MCP_AUTH_FAILED,
        `MCP server "${this.config.name}" still refuses after ${maxAuthorizations} authorizations in a row; not asking again`,
      );
    }
    this.#authorizations += 1;
    await transport.finishAuth(await auth.authorize(pending));
  }

  /** A failure no retry can fix: recorded, state `failed`, `restart()` tries again. */
  #failForGood(code: McpErrorCode, message: string): void {
    this.#lastError = { code, message: this.#redact(message), at: new Date().toISOString() };
    this.#state = 'failed';
    this.#settleFirst();
  }

  #redact(text: string): string {
    return this.#auth === undefined ? text : this.#auth.secrets.redact(text);
  }

  #makeTransport(): StdioTransport | StreamableHTTPClientTransport {
    const c = this.config;
    if (c.transport === 'http') {
      if (c.oauth !== false) this.#auth ??= new ServerAuth(c.name, c.url, c.oauth, this.#settings.auth);
      return httpTransport(c.url, c.headers, this.#auth?.provider);
    }
    return new StdioTransport({
      command: c.command,
      args: c.args,
      env: c.env,
      cwd: c.cwd,
      stderrBytes: this.#settings.stderrBytes,
      killGraceMs: this.#settings.killGraceMs,
    });
  }

  #stderrNote(): string {
    const tail = this.stderrTail.trim();
    return tail === '' ? '' : `; its stderr ends with: ${tail.slice(-500)}`;
  }

  /** A v1 client with dsh's handlers: elicitation, and re-listing on `tools/list_changed`. */
  #v1Client(): Client {
    const client = new Client({ name: 'dsh-mcp', version }, { capabilities: clientCapabilities });
    client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
      answerElicitation(this.config.name, this.#settings.elicit, request.params, extra.signal),
    );
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.#refreshTools(client));
    client.onerror = () => undefined; // stray lines and transport hiccups: the connection's fate decides, not each error
    return client;
  }

  async #dropConnection(
    client: Client | V2Client | undefined,
    transport: StdioTransport | StreamableHTTPClientTransport | V2HttpTransport,
  ): Promise<void> {
    if (client !== undefined) client.onclose = () => undefined;
    if (transport instanceof StdioTransport) this.#lastStderr = transport.stderr.text();
    await client?.close().catch(() => undefined);
    await transport.close().catch(() => undefined);
  }

  /** The connection closed without `close()`: the process died or the server hung up. */
  #lost(client: Client | V2Client): void {
    if (this.#closing || client !== this.#client) return;
    const { how, ...facts } = processFacts(this.#transport);
    this.#restarts += 1;
    const message = `server "${this.config.name}" closed its connection${how}${this.#stderrNote()}`;
    const at = new Date().toISOString();
    const crash: McpServerCrash = { code: McpErrorCode.MCP_SERVER_EXITED, message, at, ...facts, callsInFlight: this.#inFlight };
    this.#lastCrash = crash;
    this.#listener.onCrash(crash, this.#fail(McpErrorCode.MCP_SERVER_EXITED, message));
  }

  /** Records the failure and schedules the next attempt; returns its delay, or undefined when there is none (`failed`). */
  #fail(code: McpErrorCode, message: string): number | undefined {
    this.#lastError = { code, message: this.#redact(message), at: new Date().toISOString() };
    const { initialDelayMs, maxDelayMs, maxAttempts } = this.#settings.retry;
    let delay: number | undefined;
    if (this.#attempts >= maxAttempts) {
      this.#state = 'failed';
    } else {
      this.#state = 'restarting';
      delay = Math.min(maxDelayMs, initialDelayMs * 2 ** Math.max(0, this.#attempts - 1));
      this.#retryTimer = setTimeout(() => {
        this.#retryTimer = undefined;
        void this.#connect();
      }, delay);
      this.#retryTimer.unref();
    }
    this.#settleFirst();
    return delay;
  }

  async #listTools(client: Client | V2Client): Promise<Tool[]> {
    const listPage = (params: { cursor?: string }, timeout: number) =>
      client instanceof V2Client
        ? client.request({ method: 'tools/list', params }, lenientListResult, { timeout })
        : client.request({ method: 'tools/list', params }, lenientListResult, { timeout });
    const listed = await listAllTools(listPage, this.#settings.maxListPages, this.#settings.startupTimeoutMs);
    this.#malformed = listed.malformed;
    return listed.tools;
  }

  /** Tools of the last listing that were not valid tool entries. */
  get malformed(): readonly SkippedTool[] {
    return this.#malformed;
  }

  /** Re-lists tools on `notifications/tools/list_changed`; a burst of notifications makes at most one more listing. */
  #refreshTools(client: Client | V2Client): Promise<void> {
    if (this.#refreshing !== undefined) {
      this.#refreshAgain = true;
      return this.#refreshing;
    }
    this.#refreshing = (async () => {
      do {
        this.#refreshAgain = false;
        try {
          const tools = await this.#listTools(client);
          if (client !== this.#client || this.#state !== 'ready') return;
          this.#tools = tools;
          this.#listener.onTools(tools);
        } catch (error) {
          this.#lastError = {
            code: McpErrorCode.MCP_PROTOCOL_ERROR,
            message: `re-listing tools failed: ${describe(error)}`,
            at: new Date().toISOString(),
          };
        }
      } while (this.#refreshAgain);
    })().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  /** Settles when a tool-list refresh in progress (if any) is done. */
  settled(): Promise<void> {
    return this.#refreshing ?? Promise.resolve();
  }

  /** Calls a tool; throws `McpCallError` with a code for every failure but `isError` (returned as is). */
  async call(tool: string, args: Readonly<Record<string, unknown>>, settings: CallSettings): Promise<CallToolResult> {
    const client = this.#client;
    if (this.#state !== 'ready' || client === undefined) {
      const why = this.#lastError === undefined ? '' : `: ${this.#lastError.message}`;
      throw new McpCallError(McpErrorCode.MCP_SERVER_UNAVAILABLE, `MCP server "${this.config.name}" is ${this.#state}${why}`);
    }
    const crashBefore = this.#lastCrash;
    this.#inFlight += 1;
    try {
      return await this.#callAuthorized(client, tool, args, settings);
    } catch (error) {
      const auth = authFailure(error);
      if (auth !== undefined) {
        throw new McpCallError(auth.code, `${this.#redact(auth.message)}; restart the server to authorize again`);
      }
      throw callError(asV1Error(error), {
        server: this.config.name,
        aborted: settings.signal.aborted,
        timeoutMs: settings.timeoutMs,
        ready: this.#state === 'ready',
        // The crash that ended this call, even if a failed restart has replaced lastError since.
        exitMessage: this.#lastCrash === crashBefore ? undefined : this.#lastCrash?.message,
      });
    } finally {
      this.#inFlight -= 1;
    }
  }

  /** Sends the call; when the server asks for more scope (step-up) and a person grants it, sends it again. */
  async #callAuthorized(
    client: Client | V2Client,
    tool: string,
    args: Readonly<Record<string, unknown>>,
    settings: CallSettings,
  ): Promise<CallToolResult> {
    if (client instanceof V2Client) return this.#callV2(client, tool, args, settings);
    for (;;) {
      try {
        const result = (await client.request(
          { method: 'tools/call', params: { name: tool, arguments: { ...args } } },
          CallToolResultSchema,
          {
            signal: settings.signal,
            timeout: settings.timeoutMs,
            maxTotalTimeout: settings.timeoutMs,
            onprogress: settings.onProgress,
          },
        )) as CallToolResult;
        this.#authorizations = 0;
        return result;
      } catch (error) {
        const pending = this.#auth?.takePendingAuthorization();
        const transport = this.#transport;
        if (this.#auth === undefined || pending === undefined || !(transport instanceof StreamableHTTPClientTransport)) throw error;
        await this.#authorize(this.#auth, transport, pending);
      }
    }
  }

  /**
   * A call on 2026-07-28 through the v2 client's `callTool`, which answers a
   * server's `input_required` (elicitation) and sends the call again. The
   * tool's listed definition is given without its `outputSchema`: the
   * result is checked by dsh as on 2025-11-25 (`MCP_OUTPUT_SCHEMA_MISMATCH`).
   */
  async #callV2(client: V2Client, tool: string, args: Readonly<Record<string, unknown>>, settings: CallSettings): Promise<CallToolResult> {
    const listed = this.#tools.find((t) => t.name === tool);
    const { outputSchema: _, ...definition } = listed ?? { name: tool, inputSchema: { type: 'object' as const } };
    const result = await client.callTool(
      { name: tool, arguments: { ...args } },
      {
        signal: settings.signal,
        timeout: settings.timeoutMs,
        maxTotalTimeout: settings.timeoutMs,
        onprogress: settings.onProgress,
        toolDefinition: definition as never,
      },
    );
    return result as CallToolResult;
  }

  /** Stops the server for good: no more restarts; a stdio server's process group is killed. */
  async close(): Promise<void> {
    this.#closing = true;
    this.#state = 'closed';
    if (this.#retryTimer !== undefined) clearTimeout(this.#retryTimer);
    this.#settleFirst();
    await this.#auth?.close();
    const client = this.#client;
    const transport = this.#transport;
    if (client === undefined || transport === undefined) return;
    // Tell an HTTP server its session is over (best effort), so it can free it.
    if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        transport.terminateSession().catch(() => undefined),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, this.#settings.killGraceMs);
        }),
      ]);
      clearTimeout(timer);
    }
    await this.#dropConnection(client, transport);
  }
}

/** Authorizations by a person in a row before dsh stops asking (a server that never accepts cannot loop us). */
const maxAuthorizations = 3;

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Whether a start failed because the server's end of a pipe closed (our write, or the SDK's closed connection). */
function pipesClosed(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'EPIPE' || code === 'ECONNRESET' || code === ErrorCode.ConnectionClosed;
}
