import type { Socket } from 'node:net';
import { EgressErrorCode } from '../errors.js';
import type { EgressConnectionRecord, EgressDestination, EgressProtocol } from '../types.js';
import type { CallState, ClientConnection } from './connection.js';
import type { Opened, Opener } from './open-destination.js';
import { runTunnel } from './tunnel.js';

/** What the protocol fronts (HTTP, SOCKS5) need from the proxy. */
export interface ProxyCore {
  readonly opener: Opener;
  readonly idleTimeoutMs: number;
  readonly maxHeaderBytes: number;
  /** The call a request belongs to, from the connection's socket or the token it presents. */
  attribute(conn: ClientConnection, token: string | undefined): CallState | Refusal;
  /** The request head is complete: the handshake deadline no longer applies. */
  headComplete(conn: ClientConnection): void;
  /** Emits one record (a `network/connect` event's data). */
  record(conn: ClientConnection, record: RecordInput): void;
}

/** A refusal with its code. */
export interface Refusal {
  readonly code: EgressErrorCode;
  readonly reason: string;
}

/** A record before the proxy adds the connection, call and time. */
export interface RecordInput {
  readonly protocol: EgressProtocol;
  readonly startedAt: number;
  readonly target?: EgressDestination | undefined;
  readonly address?: string | undefined;
  readonly decision: 'allow' | 'deny';
  readonly decidedBy: string;
  readonly code?: string | undefined;
  readonly reason?: string | undefined;
  readonly bytesUp?: number;
  readonly bytesDown?: number;
}

/** Whether an attribution failed. */
export function isRefusal(value: CallState | Refusal): value is Refusal {
  return 'code' in value && !('callId' in value);
}

/** Records a refusal decided before or while opening. */
export function recordRefusal(
  core: ProxyCore,
  conn: ClientConnection,
  protocol: EgressProtocol,
  startedAt: number,
  refusal: Refusal | Extract<Opened, { ok: false }>,
  target?: EgressDestination,
): void {
  core.record(conn, {
    protocol,
    startedAt,
    target,
    address: 'address' in refusal ? refusal.address : undefined,
    decision: 'decision' in refusal ? refusal.decision : 'deny',
    decidedBy: 'decidedBy' in refusal ? refusal.decidedBy : 'egress',
    code: refusal.code,
    reason: refusal.reason,
  });
}

/** Runs a tunnel for an opened destination and records it when it ends. */
export function tunnelOpened(
  core: ProxyCore,
  conn: ClientConnection,
  opened: Extract<Opened, { ok: true }>,
  spec: { client: Socket; head: Buffer; target: EgressDestination; protocol: EgressProtocol; startedAt: number },
): void {
  runTunnel({
    conn,
    client: spec.client,
    upstream: opened.socket,
    reader: opened.reader,
    head: spec.head,
    target: spec.target,
    protocol: spec.protocol,
    idleTimeoutMs: core.idleTimeoutMs,
    onEnd: (end) => {
      const refusedByProxy = end.code === EgressErrorCode.EGRESS_SNI_MISMATCH || end.code === EgressErrorCode.EGRESS_BAD_REQUEST;
      core.record(conn, {
        protocol: spec.protocol,
        startedAt: spec.startedAt,
        target: spec.target,
        address: opened.address,
        decision: refusedByProxy ? 'deny' : 'allow',
        decidedBy: refusedByProxy ? 'egress' : opened.decidedBy,
        code: end.code,
        reason: end.reason,
        bytesUp: end.bytesUp,
        bytesDown: end.bytesDown,
      });
    },
  });
}

/** Builds the public record. */
export function toRecord(conn: ClientConnection, input: RecordInput, now: number): EgressConnectionRecord {
  return {
    connection: conn.id,
    ...(conn.call ? { callId: conn.call.callId } : {}),
    protocol: input.protocol,
    ...(input.target ? { host: input.target.host, port: input.target.port } : {}),
    ...(input.address === undefined ? {} : { address: input.address }),
    decision: input.decision,
    decidedBy: input.decidedBy,
    ...(input.code === undefined ? {} : { code: input.code }),
    ...(input.reason === undefined ? {} : { reason: input.reason }),
    bytesUp: input.bytesUp ?? 0,
    bytesDown: input.bytesDown ?? 0,
    startedAt: new Date(input.startedAt).toISOString(),
    durationMs: Math.max(0, now - input.startedAt),
  };
}
