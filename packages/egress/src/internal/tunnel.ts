import type { Socket } from 'node:net';
import { EgressErrorCode } from '../errors.js';
import { canonicalHost } from '../host-name.js';
import type { EgressDestination, EgressProtocol } from '../types.js';
import type { ClientConnection } from './connection.js';
import type { DestinationReader } from './destination-reader.js';
import { scanClientHello } from './tls-client-hello.js';

/** How a tunnel ended: the bytes it carried and, when abnormal, why. */
export interface TunnelEnd {
  readonly bytesUp: number;
  readonly bytesDown: number;
  readonly code?: EgressErrorCode;
  readonly reason?: string;
}

/** What a tunnel joins and how it is bounded. */
export interface TunnelSpec {
  readonly conn: ClientConnection;
  readonly client: Socket;
  readonly upstream: Socket;
  /** Reads `upstream` into a buffer of its own; without it, `upstream` is piped. */
  readonly reader?: DestinationReader | undefined;
  /** Client bytes read past the request head. */
  readonly head: Buffer;
  readonly target: EgressDestination;
  readonly protocol: EgressProtocol;
  readonly idleTimeoutMs: number;
  readonly onEnd: (end: TunnelEnd) => void;
}

/**
 * Joins client and destination. Server bytes flow at once; client bytes are
 * held until the first ones show whether they open TLS, and a ClientHello
 * whose SNI names another host than the tunnel's ends the tunnel before a
 * byte of it leaves (an allowed name cannot front for another).
 */
export function runTunnel(spec: TunnelSpec): void {
  const { conn, client, upstream, target } = spec;
  let ended = false;
  let upstreamEnded = false;
  const finish = (code?: EgressErrorCode, reason?: string) => {
    if (ended) return;
    ended = true;
    conn.closers.delete(finish);
    if (code !== undefined) {
      client.destroy();
      upstream.destroy();
    }
    spec.onEnd({
      bytesUp: upstream.bytesWritten,
      bytesDown: upstream.bytesRead,
      ...(code === undefined ? {} : { code }),
      ...(reason === undefined ? {} : { reason }),
    });
  };
  conn.closers.add(finish);
  client.on('error', () => finish(EgressErrorCode.EGRESS_CONNECT_FAILED, 'the client connection failed'));
  upstream.on('error', (error) => finish(EgressErrorCode.EGRESS_CONNECT_FAILED, `the destination failed: ${error.message}`));
  const idle = () => finish(EgressErrorCode.EGRESS_IDLE_TIMEOUT, `no traffic for ${spec.idleTimeoutMs} ms`);
  client.setTimeout(spec.idleTimeoutMs, idle);
  upstream.setTimeout(spec.idleTimeoutMs, idle);
  upstream.on('end', () => {
    upstreamEnded = true;
  });
  // The client gone means nobody can read: drop the destination. The destination
  // done means its bytes are on their way: let the client drain, then close.
  client.on('close', () => {
    upstream.destroy();
    finish();
  });
  upstream.on('close', () => {
    if (!upstreamEnded) client.destroy();
    else if (client.destroyed) finish();
  });
  if (spec.reader) spec.reader.pipe(upstream, client);
  else upstream.pipe(client);

  const forward = (first: Buffer) => {
    if (first.length > 0) upstream.write(first);
    client.pipe(upstream);
    client.resume();
  };
  if (target.kind !== 'name') {
    forward(spec.head);
    return;
  }
  let held = spec.head;
  const judge = (): boolean => {
    const scan = scanClientHello(held);
    if (scan.state === 'incomplete') return false;
    client.off('data', onData);
    client.off('end', onEnd);
    if (scan.state === 'malformed') {
      finish(EgressErrorCode.EGRESS_BAD_REQUEST, 'a malformed TLS ClientHello');
    } else if (scan.state === 'client-hello' && scan.serverName !== undefined && canonicalHost(scan.serverName)?.host !== target.host) {
      finish(EgressErrorCode.EGRESS_SNI_MISMATCH, `the TLS server name ${JSON.stringify(scan.serverName)} is not ${target.host}`);
    } else {
      forward(held);
    }
    return true;
  };
  const onData = (chunk: Buffer) => {
    held = Buffer.concat([held, chunk]);
    judge();
  };
  const onEnd = () => {
    client.off('data', onData);
    if (held.length > 0) upstream.write(held);
    upstream.end();
  };
  if (held.length > 0 && judge()) return;
  client.on('data', onData);
  client.on('end', onEnd);
  client.resume();
}
