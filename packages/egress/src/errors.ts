import { DshError } from '@deepseek-ai/dsh-core';

/**
 * Stable codes of the egress proxy. The setup codes are thrown (as a
 * `DshError`) by `startEgressProxy`, `domainPolicy` and `parseDomainPattern`;
 * the connection codes appear as `code` in an {@link EgressConnectionRecord}
 * and in the proxy's refusal (the `X-Egress-Code` header of an HTTP answer).
 */
export const EgressErrorCode = {
  /** Options that cannot be used (a wrong type, a non-loopback TCP host, a socket path too long). */
  EGRESS_INVALID_OPTIONS: 'EGRESS_INVALID_OPTIONS',
  /** A domain pattern that cannot match any destination (`*`, `a.*.com`, `http://x`, a port of 0). */
  EGRESS_INVALID_PATTERN: 'EGRESS_INVALID_PATTERN',
  /** The socket path (or TCP port) is in use by a live listener or by a file that is not a socket. */
  EGRESS_SOCKET_IN_USE: 'EGRESS_SOCKET_IN_USE',
  /** Listening failed for another reason (no such directory, no permission). */
  EGRESS_LISTEN_FAILED: 'EGRESS_LISTEN_FAILED',
  /** `openCall` was given a call id that is already open, or the proxy is closed. */
  EGRESS_CALL_REFUSED: 'EGRESS_CALL_REFUSED',

  /** The decider (policy, grants or approval) denied the destination. */
  EGRESS_DENIED: 'EGRESS_DENIED',
  /** The decider threw or returned something other than a decision: denied (fail closed). */
  EGRESS_DECIDE_FAILED: 'EGRESS_DECIDE_FAILED',
  /** The destination is, or resolved to, a loopback, link-local, metadata, private or reserved address. */
  EGRESS_BLOCKED_ADDRESS: 'EGRESS_BLOCKED_ADDRESS',
  /** The destination name did not resolve (or resolved to nothing). */
  EGRESS_RESOLVE_FAILED: 'EGRESS_RESOLVE_FAILED',
  /** The checked address refused or did not answer. */
  EGRESS_CONNECT_FAILED: 'EGRESS_CONNECT_FAILED',
  /** No call token, or one of no open call (a forged or stale request). */
  EGRESS_UNKNOWN_CALL: 'EGRESS_UNKNOWN_CALL',
  /** A malformed request, an unusable destination, or an unsupported method or SOCKS command. */
  EGRESS_BAD_REQUEST: 'EGRESS_BAD_REQUEST',
  /** A Host header that names another authority than the CONNECT target or the absolute-form URL. */
  EGRESS_HOST_MISMATCH: 'EGRESS_HOST_MISMATCH',
  /** A TLS ClientHello through a tunnel whose SNI names another host than the tunnel's. */
  EGRESS_SNI_MISMATCH: 'EGRESS_SNI_MISMATCH',
  /** The call (or the proxy, for connections not yet attributed) has as many connections as its limit. */
  EGRESS_TOO_MANY_CONNECTIONS: 'EGRESS_TOO_MANY_CONNECTIONS',
  /** The request head did not arrive within `handshakeTimeoutMs` (a hung or slowloris client). */
  EGRESS_HANDSHAKE_TIMEOUT: 'EGRESS_HANDSHAKE_TIMEOUT',
  /** A tunnel carried no byte either way for `idleTimeoutMs`. */
  EGRESS_IDLE_TIMEOUT: 'EGRESS_IDLE_TIMEOUT',
  /** The connection's call was closed (`closeCall`) or the proxy closed while it was open. */
  EGRESS_CALL_CLOSED: 'EGRESS_CALL_CLOSED',
} as const;

/** One of the egress proxy's stable codes. */
export type EgressErrorCode = (typeof EgressErrorCode)[keyof typeof EgressErrorCode];

/** A `DshError` with one of this package's codes. */
export function egressError(code: EgressErrorCode, message: string, options?: { cause?: unknown; data?: unknown }): DshError {
  return new DshError(code, message, options);
}
