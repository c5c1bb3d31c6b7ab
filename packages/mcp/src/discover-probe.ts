import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type DiscoverResult,
  isSpecType,
  PROTOCOL_VERSION_META_KEY,
  SdkHttpError,
} from '@modelcontextprotocol/client';
import { version } from './version.js';

/** The 2026-07-28 spec version: the one modern version dsh speaks. */
export const modernVersion = '2026-07-28';

/** The capabilities dsh announces, on both spec versions. */
export const clientCapabilities = { elicitation: { form: { applyDefaults: true } } };

/**
 * What a `server/discover` probe found: a 2026-07-28 server (`modern`), a 2025
 * server (`legacy`), a server that exited on it (`closed`, stdio), one that
 * asks for OAuth first (`auth`, HTTP 401/403), or an outage (`failed`).
 */
export type ProbeVerdict =
  | { readonly era: 'modern'; readonly discover: DiscoverResult }
  | { readonly era: 'legacy' }
  | { readonly era: 'closed' }
  | { readonly era: 'auth' }
  | { readonly era: 'failed'; readonly error: unknown };

/** The part of a started transport the probe uses; its handlers are restored before the probe resolves. */
export interface ProbeTransport {
  onmessage?: ((message: never) => void) | undefined;
  onclose?: (() => void) | undefined;
  send(message: { jsonrpc: '2.0'; id: string; method: string; params: object }): Promise<void>;
}

/**
 * Sends `server/discover` on a started transport, in place, and classifies
 * the answer as the v2 SDK's negotiation does: a result that offers
 * 2026-07-28 is modern; a JSON-RPC error or another result is a 2025 server,
 * and so is silence within `timeoutMs` on stdio (on HTTP silence is an outage).
 * A 4xx other than 401/403 is a 2025 server (which refuses a request before
 * `initialize`); 5xx and network errors are failures.
 */
export function probeDiscover(transport: ProbeTransport, kind: 'stdio' | 'http', timeoutMs: number): Promise<ProbeVerdict> {
  const id = 'dsh-server-discover-probe';
  const { onmessage, onclose } = transport;
  return new Promise<ProbeVerdict>((resolve) => {
    const settle = (verdict: ProbeVerdict): void => {
      clearTimeout(timer);
      transport.onmessage = onmessage;
      transport.onclose = onclose;
      resolve(verdict);
    };
    const timer = setTimeout(
      () =>
        settle(
          kind === 'stdio' ? { era: 'legacy' } : { era: 'failed', error: new Error(`server/discover not answered within ${timeoutMs} ms`) },
        ),
      timeoutMs,
    );
    transport.onmessage = ((message: { id?: unknown; method?: unknown; result?: unknown }) => {
      if (message.id !== id || message.method !== undefined) return; // not our answer: a stray line
      const discover = message.result;
      const modern = isSpecType.DiscoverResult(discover) && discover.supportedVersions.includes(modernVersion);
      settle(modern ? { era: 'modern', discover } : { era: 'legacy' });
    }) as never;
    transport.onclose = () => settle({ era: 'closed' });
    const params = {
      _meta: {
        [PROTOCOL_VERSION_META_KEY]: modernVersion,
        [CLIENT_INFO_META_KEY]: { name: 'dsh-mcp', version },
        [CLIENT_CAPABILITIES_META_KEY]: clientCapabilities,
      },
    };
    transport.send({ jsonrpc: '2.0', id, method: 'server/discover', params }).catch((error: unknown) => settle(sendFailure(error, kind)));
  });
}

function sendFailure(error: unknown, kind: 'stdio' | 'http'): ProbeVerdict {
  if (kind === 'stdio') return { era: 'closed' };
  const status = error instanceof SdkHttpError ? error.data?.status : undefined;
  if (status === 401 || status === 403) return { era: 'auth' };
  if (status !== undefined && status >= 400 && status < 500) return { era: 'legacy' };
  return { era: 'failed', error };
}
