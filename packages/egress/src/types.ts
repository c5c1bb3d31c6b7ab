import type { CanonicalHost } from './host-name.js';

/** How a client asked for a destination. */
export type EgressProtocol = 'http-connect' | 'http-forward' | 'socks5';

/** A destination a command asked for: canonical host (name or IP) and port. */
export interface EgressDestination extends CanonicalHost {
  readonly port: number;
}

/** What the decider learns about the connection that asks. */
export interface EgressConnectionInfo {
  /** The proxy's number for this client connection, unique while the proxy runs. */
  readonly id: number;
  /** The call that opened the connection (its socket, or its token). */
  readonly callId: string;
  readonly protocol: EgressProtocol;
  /** Aborted when the call is closed: an approval prompt may give up. */
  readonly signal: AbortSignal;
}

/** A decider's answer: a bare verdict, or one that names who decided and why. */
export type EgressDecision = 'allow' | 'deny' | { readonly decision: 'allow' | 'deny'; readonly by?: string; readonly reason?: string };

/**
 * Decides a new destination of a call: deny lists, allow lists and grants,
 * then an approval. Called once per call and destination (`host:port`) while
 * `rememberDecisions` holds; concurrent connections to one destination share
 * the answer. A decider that throws, or answers anything else, denies.
 */
export type EgressDecider = (destination: EgressDestination, connection: EgressConnectionInfo) => EgressDecision | Promise<EgressDecision>;

/** Resolves a name to addresses on the proxy's side (never inside the sandbox). */
export type EgressResolver = (host: string) => Promise<readonly (string | { readonly address: string })[]>;

/**
 * One destination opened (or refused) through the proxy: the data of a
 * `network/connect` session event. Given to `onConnection` when the tunnel
 * or the forwarded request ends, or when the proxy refuses.
 */
export interface EgressConnectionRecord {
  /** The client connection's number (several forwarded requests may share one). */
  readonly connection: number;
  /** The call that opened it; absent when the proxy could not attribute it (no or a forged token). */
  readonly callId?: string;
  readonly protocol: EgressProtocol;
  /** Absent when the request never named a usable destination. */
  readonly host?: string;
  readonly port?: number;
  /** The checked address the proxy connected to (pinned: the name is never resolved again). */
  readonly address?: string;
  /** `allow` when the decider allowed and the proxy connected; `deny` for every refusal. */
  readonly decision: 'allow' | 'deny';
  /** Who decided: the decider's `by` (`decide` by default), or `egress` for the proxy's own refusals. */
  readonly decidedBy: string;
  /** Why it was refused or ended abnormally: an {@link EgressErrorCode}. */
  readonly code?: string;
  readonly reason?: string;
  /** Payload bytes from the client to the destination (for forwarded requests: the body). */
  readonly bytesUp: number;
  /** Payload bytes from the destination to the client. */
  readonly bytesDown: number;
  /** ISO time the client connection asked. */
  readonly startedAt: string;
  readonly durationMs: number;
}

/** Bounds that keep one call, or a hostile client, from exhausting the proxy. */
export interface EgressLimits {
  /** Open client connections per call (default 64); more are refused with `EGRESS_TOO_MANY_CONNECTIONS`. */
  readonly maxConnectionsPerCall?: number;
  /** Connections not yet attributed to a call (default 128); more are closed at once. */
  readonly maxPendingConnections?: number;
  /** Time from accept until the request head is complete (default 10 s); slowloris ends here. */
  readonly handshakeTimeoutMs?: number;
  /** A tunnel with no byte either way for this long is closed (default 5 min). */
  readonly idleTimeoutMs?: number;
  /** Time to connect to the checked address (default 30 s). */
  readonly connectTimeoutMs?: number;
  /** The largest request head (default 16 KiB). */
  readonly maxHeaderBytes?: number;
}

/** A snapshot of the proxy's state. */
export interface EgressStats {
  /** Open client connections, attributed or not. */
  readonly connections: number;
  /** Connections still in their handshake, not yet attributed. */
  readonly pending: number;
  /** Open calls and their open connections. */
  readonly calls: Readonly<Record<string, number>>;
  /** Destinations opened and refused, and their payload bytes, since the start. */
  readonly opened: number;
  readonly refused: number;
  readonly bytesUp: number;
  readonly bytesDown: number;
}
