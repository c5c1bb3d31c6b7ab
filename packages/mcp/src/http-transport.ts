import { randomUUID } from 'node:crypto';
import { LosslessNumber } from '@deepseek-ai/dsh-core';
import { StreamableHTTPClientTransport as V2HttpTransport } from '@modelcontextprotocol/client';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { hasExactNumbers } from './internal/plain-view.js';

/**
 * The SDK's Streamable HTTP client transport, made lossless for arguments:
 * the SDK serialises with `JSON.stringify`, which cannot write a bigint, so
 * exact numbers travel as marked strings that the fetch wrapper turns back
 * into bare digits in the request body.
 */
export function httpTransport(
  url: URL,
  headers: Readonly<Record<string, string>>,
  authProvider?: OAuthClientProvider,
): StreamableHTTPClientTransport {
  return lossless(
    (fetch) =>
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { ...headers } },
        fetch,
        ...(authProvider === undefined ? {} : { authProvider }),
      }),
  );
}

/** The v2 client's Streamable HTTP transport (2026-07-28), lossless for arguments the same way. No OAuth on it yet. */
export function httpTransportV2(url: URL, headers: Readonly<Record<string, string>>): V2HttpTransport {
  return lossless((fetch) => new V2HttpTransport(url, { requestInit: { headers: { ...headers } }, fetch }));
}

type Fetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

/** Builds a transport on a fetch that writes marked exact numbers as bare digits, and marks them on `send`. */
function lossless<T extends object>(make: (fetch: Fetch) => T): T {
  const mark = `\u0000dsh-number-${randomUUID()}:`;
  // The mark as it appears inside a JSON body (the NUL written as an escape).
  const wireMark = JSON.stringify(mark).slice(1, -1);
  const escaped = wireMark.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`"${escaped}(-?[0-9][0-9.eE+-]*)\\\\u0000"`, 'g');
  let transport: T | undefined;
  const fetchExact = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const body = init?.body;
    const exact = typeof body === 'string' && body.includes(wireMark) ? { ...init, body: body.replace(pattern, '$1') } : init;
    const response = await fetch(input, exact);
    if ((response.status === 401 || response.status === 403) && transport !== undefined) challenged.add(transport);
    return response;
  };
  transport = make(fetchExact);
  const send = (transport as unknown as { send: (m: JSONRPCMessage, o?: unknown) => Promise<void> }).send.bind(transport) as (
    message: JSONRPCMessage,
    options?: unknown,
  ) => Promise<void>;
  (transport as { send: unknown }).send = (message: JSONRPCMessage, options?: unknown) =>
    send(hasExactNumbers(message) ? (marked(message, mark) as JSONRPCMessage) : message, options);
  return transport;
}

const challenged = new WeakSet<object>();

/** Whether some request of this transport was answered 401 or 403: a failure since then is about authorization. */
export function wasChallenged(transport: object): boolean {
  return challenged.has(transport);
}

function marked(value: unknown, mark: string): unknown {
  if (typeof value === 'bigint' || value instanceof LosslessNumber) return `${mark}${value.toString()}\u0000`;
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((v) => marked(v, mark));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, marked(v, mark)]));
}
