import { randomUUID } from 'node:crypto';
import { LosslessNumber } from '@deepseek-ai/dsh-core';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { hasExactNumbers } from './internal/plain-view.js';

/**
 * The SDK's Streamable HTTP client transport, made lossless for arguments:
 * the SDK serialises with `JSON.stringify`, which cannot write a bigint, so
 * exact numbers travel as marked strings that the fetch wrapper turns back
 * into bare digits in the request body.
 */
export function httpTransport(url: URL, headers: Readonly<Record<string, string>>): StreamableHTTPClientTransport {
  const mark = `\u0000dsh-number-${randomUUID()}:`;
  // The mark as it appears inside a JSON body (the NUL written as an escape).
  const wireMark = JSON.stringify(mark).slice(1, -1);
  const escaped = wireMark.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`"${escaped}(-?[0-9][0-9.eE+-]*)\\\\u0000"`, 'g');
  const fetchExact = (input: string | URL, init?: RequestInit): Promise<Response> => {
    const body = init?.body;
    if (typeof body === 'string' && body.includes(wireMark)) {
      return fetch(input, { ...init, body: body.replace(pattern, '$1') });
    }
    return fetch(input, init);
  };
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { ...headers } }, fetch: fetchExact });
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage, options) =>
    send(hasExactNumbers(message) ? (marked(message, mark) as JSONRPCMessage) : message, options);
  return transport;
}

function marked(value: unknown, mark: string): unknown {
  if (typeof value === 'bigint' || value instanceof LosslessNumber) return `${mark}${value.toString()}\u0000`;
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((v) => marked(v, mark));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, marked(v, mark)]));
}
