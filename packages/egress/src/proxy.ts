import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { unlink } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { addressAllowList } from './address-ranges.js';
import { EgressErrorCode, egressError } from './errors.js';
import { type CallState, ClientConnection } from './internal/connection.js';
import { createHttpFront } from './internal/http-front.js';
import { listenOnPath, listenOnTcp } from './internal/listen.js';
import type { Opener } from './internal/open-destination.js';
import { type ProxyCore, type RecordInput, type Refusal, toRecord } from './internal/proxy-core.js';
import { handleSocks } from './internal/socks5.js';
import { type EgressProxyOptions, egressProxyOptionsSchema } from './options.js';
import type { EgressResolver, EgressStats } from './types.js';

/** A call's handle on the proxy: how its command reaches it, and how to end it. */
export interface EgressCall {
  readonly callId: string;
  /** The call's credential on the shared socket: the username of `Proxy-Authorization: Basic` or of SOCKS5. */
  readonly token: string;
  /** The call's own socket, when one was asked for: connections there need no token. */
  readonly socketPath?: string;
  /** Closes the call's tunnels and its socket; the token stops working. */
  close(): Promise<void>;
}

/** A running egress proxy. */
export interface EgressProxy {
  readonly socketPath: string;
  /** The loopback TCP port, when `tcp` was given. */
  readonly tcpPort?: number;
  /**
   * Opens a call: connections that present its token (or come through its own
   * `socketPath`) are attributed to it, decided with its call id, and closed
   * with it. Throws `EGRESS_CALL_REFUSED` for a call id already open.
   */
  openCall(callId: string, options?: { readonly socketPath?: string }): Promise<EgressCall>;
  /** Closes every tunnel and connection of the call; later requests with its token are refused. */
  closeCall(callId: string): Promise<void>;
  /** A snapshot of connections, calls and totals. */
  stats(): EgressStats;
  /** Stops listening and closes every call and connection. */
  close(): Promise<void>;
}

const defaultResolver: EgressResolver = async (host) => await lookup(host, { all: true, verbatim: true });

/**
 * Starts the egress proxy on a unix socket (and, optionally, loopback TCP):
 * HTTP CONNECT, plain-http forwarding and SOCKS5 on the same socket. Every
 * new destination of a call goes to `decide`; names are resolved here, every
 * address is checked against the restricted ranges (unless `allowAddresses`
 * lets it through), and connections go to the checked address.
 * Throws `EGRESS_INVALID_OPTIONS`, `EGRESS_SOCKET_IN_USE` or `EGRESS_LISTEN_FAILED`.
 */
export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const parsed = egressProxyOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || 'options';
    throw egressError(EgressErrorCode.EGRESS_INVALID_OPTIONS, `startEgressProxy: ${field} ${issue?.message ?? 'is invalid'}`);
  }
  const config = parsed.data;
  const limits = config.limits;
  const opener: Opener = {
    decide: config.decide,
    resolve: config.resolve ?? defaultResolver,
    mayReach: addressAllowList(config.allowAddresses),
    rememberDecisions: config.rememberDecisions,
    connectTimeoutMs: limits.connectTimeoutMs,
  };
  const calls = new Map<string, CallState>();
  const byToken = new Map<string, CallState>();
  const connections = new Map<Socket, ClientConnection>();
  const totals = { opened: 0, refused: 0, bytesUp: 0, bytesDown: 0 };
  let pending = 0;
  let nextId = 1;
  let closed = false;

  const unattributed = (conn: ClientConnection) => {
    if (conn.call === undefined) pending -= 1;
  };
  const core: ProxyCore = {
    opener,
    idleTimeoutMs: limits.idleTimeoutMs,
    maxHeaderBytes: limits.maxHeaderBytes,
    attribute(conn, token): CallState | Refusal {
      const call = conn.fixedCall ?? (token === undefined ? undefined : byToken.get(token));
      if (!call || call.closed) {
        return {
          code: EgressErrorCode.EGRESS_UNKNOWN_CALL,
          reason: token === undefined ? 'no call token was presented' : 'the token belongs to no open call',
        };
      }
      if (conn.call === call) return call;
      if (conn.call !== undefined) return { code: EgressErrorCode.EGRESS_UNKNOWN_CALL, reason: 'a connection belongs to one call only' };
      if (call.connections.size >= limits.maxConnectionsPerCall) {
        return {
          code: EgressErrorCode.EGRESS_TOO_MANY_CONNECTIONS,
          reason: `the call has ${limits.maxConnectionsPerCall} connections open`,
        };
      }
      unattributed(conn);
      conn.call = call;
      call.connections.add(conn);
      return call;
    },
    headComplete(conn) {
      clearTimeout(conn.handshakeTimer);
      conn.handshakeTimer = undefined;
    },
    record(conn, input: RecordInput) {
      const record = toRecord(conn, input, Date.now());
      if (record.decision === 'allow' && record.code === undefined) totals.opened += 1;
      else totals.refused += 1;
      totals.bytesUp += record.bytesUp;
      totals.bytesDown += record.bytesDown;
      try {
        config.onConnection?.(record);
      } catch {
        // A logging callback must not break the proxy.
      }
    },
  };
  const http = createHttpFront(core, (socket) => connections.get(socket));

  const accept = (socket: Socket, fixedCall: CallState | undefined) => {
    const conn = new ClientConnection(nextId++, socket, fixedCall);
    socket.on('error', () => undefined);
    const refuseNow = (code: EgressErrorCode, reason: string) => {
      core.record(conn, { protocol: 'http-connect', startedAt: Date.now(), decision: 'deny', decidedBy: 'egress', code, reason });
      socket.destroy();
    };
    if (closed || fixedCall?.closed) return void socket.destroy();
    if (fixedCall) {
      if (fixedCall.connections.size >= limits.maxConnectionsPerCall) {
        return refuseNow(EgressErrorCode.EGRESS_TOO_MANY_CONNECTIONS, `the call has ${limits.maxConnectionsPerCall} connections open`);
      }
      fixedCall.connections.add(conn);
    } else {
      if (pending >= limits.maxPendingConnections) {
        return refuseNow(EgressErrorCode.EGRESS_TOO_MANY_CONNECTIONS, `${limits.maxPendingConnections} connections are in their handshake`);
      }
      pending += 1;
    }
    connections.set(socket, conn);
    conn.handshakeTimer = setTimeout(() => {
      conn.handshakeTimer = undefined;
      core.record(conn, {
        protocol: 'http-connect',
        startedAt: Date.now() - limits.handshakeTimeoutMs,
        decision: 'deny',
        decidedBy: 'egress',
        code: EgressErrorCode.EGRESS_HANDSHAKE_TIMEOUT,
        reason: `no complete request within ${limits.handshakeTimeoutMs} ms`,
      });
      socket.destroy();
    }, limits.handshakeTimeoutMs);
    socket.once('close', () => {
      conn.closed = true;
      clearTimeout(conn.handshakeTimer);
      connections.delete(socket);
      unattributed(conn);
      conn.call?.connections.delete(conn);
    });
    // One socket serves all three protocols: SOCKS5 starts with its version byte, HTTP with a method.
    socket.once('data', (first: Buffer) => {
      socket.pause();
      if (first[0] === 0x05) return void handleSocks(core, conn, socket, first);
      socket.unshift(first);
      http.emit('connection', socket);
      socket.resume();
    });
  };

  const shared = createServer({ allowHalfOpen: true }, (socket) => accept(socket, undefined));
  await listenOnPath(shared, config.socketPath);
  let tcp: Server | undefined;
  let tcpPort: number | undefined;
  if (config.tcp) {
    tcp = createServer({ allowHalfOpen: true }, (socket) => accept(socket, undefined));
    try {
      tcpPort = await listenOnTcp(tcp, config.tcp.host, config.tcp.port);
    } catch (error) {
      await closeServer(shared, config.socketPath);
      throw error;
    }
  }

  const closeCall = async (callId: string): Promise<void> => {
    const call = calls.get(callId);
    if (!call) return;
    call.closed = true;
    calls.delete(callId);
    byToken.delete(call.token);
    call.controller.abort(egressError(EgressErrorCode.EGRESS_CALL_CLOSED, `call ${callId} was closed`));
    for (const conn of [...call.connections]) conn.end(EgressErrorCode.EGRESS_CALL_CLOSED);
    if (call.listener) await closeServer(call.listener, call.socketPath);
  };

  const proxy: EgressProxy = {
    socketPath: config.socketPath,
    ...(tcpPort === undefined ? {} : { tcpPort }),
    async openCall(callId, callOptions = {}) {
      if (closed) throw egressError(EgressErrorCode.EGRESS_CALL_REFUSED, 'the proxy is closed');
      if (typeof callId !== 'string' || callId === '')
        throw egressError(EgressErrorCode.EGRESS_CALL_REFUSED, 'a call id must be a non-empty string');
      if (calls.has(callId)) throw egressError(EgressErrorCode.EGRESS_CALL_REFUSED, `call ${callId} is already open`);
      const call: CallState = {
        callId,
        token: randomBytes(18).toString('base64url'),
        connections: new Set(),
        decisions: new Map(),
        controller: new AbortController(),
        closed: false,
      };
      calls.set(callId, call);
      byToken.set(call.token, call);
      if (callOptions.socketPath !== undefined) {
        const listener = createServer({ allowHalfOpen: true }, (socket) => accept(socket, call));
        try {
          await listenOnPath(listener, callOptions.socketPath);
        } catch (error) {
          calls.delete(callId);
          byToken.delete(call.token);
          throw error;
        }
        call.listener = listener;
        call.socketPath = callOptions.socketPath;
      }
      return {
        callId,
        token: call.token,
        ...(call.socketPath === undefined ? {} : { socketPath: call.socketPath }),
        close: () => closeCall(callId),
      };
    },
    closeCall,
    stats() {
      const open: Record<string, number> = {};
      for (const [id, call] of calls) open[id] = call.connections.size;
      return { connections: connections.size, pending, calls: open, ...totals };
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...calls.keys()].map(closeCall));
      for (const conn of [...connections.values()]) conn.end(EgressErrorCode.EGRESS_CALL_CLOSED);
      await Promise.all([closeServer(shared, config.socketPath), tcp ? closeServer(tcp) : undefined]);
      http.close();
    },
  };
  return proxy;
}

function closeServer(server: Server, path?: string): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // close() unlinks the socket itself; a path that lingers is removed.
    if (path !== undefined) void unlink(path).catch(() => undefined);
  });
}
