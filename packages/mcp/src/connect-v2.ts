import {
  type DiscoverResult,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  Client as V2Client,
  type Transport as V2Transport,
} from '@modelcontextprotocol/client';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { clientCapabilities } from './discover-probe.js';
import { answerElicitation, type ElicitationHandler } from './elicitation.js';
import { version } from './version.js';

export { V2Client };

/** What a 2026-07-28 session tells the connection that owns it. */
export interface V2Hooks {
  readonly server: string;
  readonly elicit: ElicitationHandler | undefined;
  /** The server said its tool list changed (on the `subscriptions/listen` stream). */
  readonly onToolsChanged: (client: V2Client) => void;
}

/**
 * Opens a 2026-07-28 session through the v2 client on a transport the
 * `server/discover` probe already started, adopting the probe's result
 * (no second round trip). Elicitation reaches the same handler as on
 * 2025-11-25 (on 2026-07-28 it arrives inside a `tools/call` as
 * `input_required`, fulfilled by the client and the call sent again), and
 * tool-list changes are followed through `subscriptions/listen`.
 */
export async function connectV2(transport: V2Transport, discover: DiscoverResult, hooks: V2Hooks, timeoutMs: number): Promise<V2Client> {
  const client = new V2Client({ name: 'dsh-mcp', version }, { capabilities: clientCapabilities });
  client.setRequestHandler('elicitation/create', (request, ctx) =>
    answerElicitation(hooks.server, hooks.elicit, request.params as Record<string, unknown>, ctx.mcpReq.signal),
  );
  client.setNotificationHandler('notifications/tools/list_changed', () => hooks.onToolsChanged(client));
  client.onerror = () => undefined; // as on v1: the connection's fate decides, not each error
  startedAlready(transport);
  await client.connect(transport, { prior: { kind: 'modern', discover }, timeout: timeoutMs });
  if (client.getServerCapabilities()?.tools?.listChanged === true) {
    await client.listen({ toolsListChanged: true }, { timeout: timeoutMs });
  }
  return client;
}

/** The probe started the transport; the client's `connect` starts it once more, which must be a no-op. */
export function startedAlready(transport: { start: () => Promise<void> }): void {
  const start = transport.start;
  transport.start = async () => {
    transport.start = start;
  };
}

/**
 * The v2 client's errors as the v1 SDK's `McpError`, so one mapping
 * (`callError`) gives both spec versions the same codes: a JSON-RPC error
 * keeps its code, a timeout and a closed connection become v1's codes.
 */
export function asV1Error(error: unknown): unknown {
  if (error instanceof ProtocolError) return new McpError(error.code, error.message, error.data);
  if (error instanceof SdkError) {
    if (error.code === SdkErrorCode.RequestTimeout) return new McpError(ErrorCode.RequestTimeout, error.message);
    if (error.code === SdkErrorCode.ConnectionClosed) return new McpError(ErrorCode.ConnectionClosed, error.message);
  }
  return error;
}
