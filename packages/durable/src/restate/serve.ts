import { createServer, type Http2Server, type Http2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import * as restate from '@restatedev/restate-sdk';

/** A served Restate endpoint: its URL and how to stop it. */
export interface ServedEndpoint {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves Restate objects (the session object and `approvalsObject`) over
 * HTTP/2 on `host` (loopback by default: put a proxy in front to expose it).
 * `port` 0 picks a free one.
 */
export async function serveEndpoint(
  objects: readonly restate.VirtualObjectDefinition<string, unknown>[],
  options: { readonly port?: number; readonly host?: string } = {},
): Promise<ServedEndpoint> {
  const endpoint = restate.endpoint();
  for (const object of objects) endpoint.bind(object);
  const server: Http2Server = createServer(endpoint.http2Handler());
  // The engine keeps its HTTP/2 connection open; `close` must end it, or it would wait forever.
  const sessions = new Set<Http2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const session of sessions) session.close();
      }),
  };
}
