import type { StreamableHTTPClientTransport as V2HttpTransport, Transport as V2Transport } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ResolvedServer } from './config.js';
import { connectV2, startedAlready, type V2Client, type V2Hooks } from './connect-v2.js';
import { modernVersion, type ProbeTransport, probeDiscover } from './discover-probe.js';
import { McpCallError, McpErrorCode } from './errors.js';
import { httpTransportV2 } from './http-transport.js';
import { StdioTransport } from './stdio-transport.js';

/** A connected session: the v1 client (2025-11-25 and older) or the v2 client (2026-07-28), and its transport. */
export type McpSession =
  | { readonly client: Client; readonly transport: StdioTransport | StreamableHTTPClientTransport }
  | { readonly client: V2Client; readonly transport: StdioTransport | V2HttpTransport };

/** What opening a session needs from the connection that owns it. */
export interface SessionSettings {
  /** A v1 client with dsh's handlers (elicitation, tool-list changes). */
  readonly v1Client: () => Client;
  readonly v2: V2Hooks;
  readonly timeoutMs: number;
  /** How long a stdio server may stay silent on `server/discover` before it counts as a 2025 server. */
  readonly stdioProbeTimeoutMs: number;
  /** Skip the probe on stdio: the last one made this server exit. */
  readonly skipStdioProbe: boolean;
}

/** Thrown when a stdio server exited on `server/discover`: the next start goes to `initialize` directly. */
export class ProbeClosedError extends Error {}

/**
 * The one place the spec version is chosen. With `protocol: 'auto'` (the
 * default for HTTP servers) the server is asked `server/discover` first (in
 * place on the stdio pipe; a fresh request on HTTP): a server that offers
 * 2026-07-28 gets the v2 client, any other answer the v1 client and
 * `initialize`, as before. A stdio server speaks 2025-11-25 unless its entry
 * says otherwise: probing in place before `initialize` makes some 2025
 * servers exit (the SDKs' own default is no negotiation, for that reason).
 * An HTTP server that answers the probe 401/403 gets the v1 path, where dsh's
 * OAuth is (OAuth is not yet wired to the v2 client).
 */
export async function openSession(
  config: ResolvedServer,
  transport: StdioTransport | StreamableHTTPClientTransport,
  settings: SessionSettings,
): Promise<McpSession> {
  const pin = config.protocol ?? (transport instanceof StdioTransport ? '2025-11-25' : 'auto');
  if (pin === '2025-11-25') return connectV1(transport, settings);
  if (transport instanceof StdioTransport) {
    if (settings.skipStdioProbe && pin === 'auto') return connectV1(transport, settings);
    await transport.start();
    const verdict = await probeDiscover(transport as unknown as ProbeTransport, 'stdio', settings.stdioProbeTimeoutMs);
    if (verdict.era === 'modern') {
      return { client: await connectV2(transport as unknown as V2Transport, verdict.discover, settings.v2, settings.timeoutMs), transport };
    }
    if (verdict.era === 'closed') throw new ProbeClosedError('the server exited on the server/discover probe');
    if (pin === modernVersion) throw notSpoken(config.name);
    startedAlready(transport);
    return connectV1(transport, settings);
  }
  if (config.transport !== 'http') throw new Error('unreachable: an HTTP transport for a stdio entry');
  const modern = httpTransportV2(config.url, config.headers);
  let keep = false;
  try {
    await modern.start();
    const verdict = await probeDiscover(modern as unknown as ProbeTransport, 'http', settings.timeoutMs);
    if (verdict.era === 'modern') {
      const client = await connectV2(modern, verdict.discover, settings.v2, settings.timeoutMs);
      keep = true;
      return { client, transport: modern };
    }
    if (verdict.era === 'failed') throw verdict.error;
    if (pin === modernVersion) {
      if (verdict.era === 'auth') {
        throw new McpCallError(
          McpErrorCode.MCP_PROTOCOL_UNSUPPORTED,
          `MCP server "${config.name}" asks for OAuth, which dsh does not yet offer on 2026-07-28 (the entry pins protocol "2026-07-28")`,
        );
      }
      throw notSpoken(config.name);
    }
  } finally {
    if (!keep) await modern.close().catch(() => undefined);
  }
  return connectV1(transport, settings);
}

async function connectV1(transport: StdioTransport | StreamableHTTPClientTransport, settings: SessionSettings): Promise<McpSession> {
  const client = settings.v1Client();
  await client.connect(transport as Transport, { timeout: settings.timeoutMs });
  return { client, transport };
}

function notSpoken(server: string): McpCallError {
  return new McpCallError(
    McpErrorCode.MCP_PROTOCOL_UNSUPPORTED,
    `MCP server "${server}" does not offer 2026-07-28 in server/discover (the entry pins protocol "2026-07-28")`,
  );
}
