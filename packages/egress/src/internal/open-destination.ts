import { isIP, connect as netConnect, type Socket } from 'node:net';
import { restrictedRange } from '../address-ranges.js';
import { EgressErrorCode } from '../errors.js';
import type { EgressDecider, EgressDecision, EgressDestination, EgressProtocol, EgressResolver } from '../types.js';
import type { CallState, ClientConnection, Decided } from './connection.js';
import { DestinationReader } from './destination-reader.js';

/** What opening a destination gave: a connected socket to a checked address, or a refusal. */
export type Opened =
  | {
      readonly ok: true;
      readonly socket: Socket;
      /** How a tunnel reads the socket (absent for forwarded http, which an http client reads). */
      readonly reader?: DestinationReader;
      readonly address: string;
      readonly decidedBy: string;
    }
  | {
      readonly ok: false;
      readonly code: EgressErrorCode;
      readonly reason: string;
      readonly decision: 'allow' | 'deny';
      readonly decidedBy: string;
      readonly address?: string;
    };

/** What opening needs from the proxy. */
export interface Opener {
  readonly decide: EgressDecider;
  readonly resolve: EgressResolver;
  readonly mayReach: (address: string) => boolean;
  readonly rememberDecisions: boolean;
  readonly connectTimeoutMs: number;
}

/**
 * Decide, resolve, check, connect: the destination is decided by name before
 * anything is resolved (a denied name never reaches DNS), every resolved
 * address is checked, and the socket goes to a checked address, so the name
 * is never resolved again for this connection (no DNS rebinding).
 */
export async function openDestination(
  opener: Opener,
  conn: ClientConnection,
  call: CallState,
  target: EgressDestination,
  protocol: EgressProtocol,
): Promise<Opened> {
  const decided = await decisionFor(opener, conn, call, target, protocol);
  const gone = () => goneRefusal(conn, call, decided.by);
  if (conn.closed || call.closed) return gone();
  if (decided.decision === 'deny') {
    return {
      ok: false,
      code: decided.code ?? EgressErrorCode.EGRESS_DENIED,
      reason: decided.reason ?? `${target.host}:${target.port} was denied`,
      decision: 'deny',
      decidedBy: decided.by,
    };
  }
  // A name the decider allowed that cannot be reached stays the decider's allow.
  const unreachable = (code: EgressErrorCode, reason: string): Opened => ({
    ok: false,
    code,
    reason,
    decision: 'allow',
    decidedBy: decided.by,
  });
  const blocked = (reason: string, address: string): Opened => ({
    ok: false,
    code: EgressErrorCode.EGRESS_BLOCKED_ADDRESS,
    reason,
    decision: 'deny',
    decidedBy: 'egress',
    address,
  });
  let addresses: string[];
  if (target.kind !== 'name') addresses = [target.host];
  else {
    try {
      const answer = await opener.resolve(target.host);
      addresses = answer.map((entry) => (typeof entry === 'string' ? entry : entry.address));
    } catch (error) {
      return unreachable(EgressErrorCode.EGRESS_RESOLVE_FAILED, `${target.host} did not resolve: ${String(error)}`);
    }
    if (conn.closed || call.closed) return gone();
    if (addresses.length === 0) return unreachable(EgressErrorCode.EGRESS_RESOLVE_FAILED, `${target.host} resolved to no address`);
  }
  // One restricted address refuses them all: a name that mixes public and internal answers is an attack.
  for (const address of addresses) {
    const range = isIP(address) === 0 ? 'reserved' : restrictedRange(address);
    if (range !== undefined && !opener.mayReach(address)) {
      const via = target.kind === 'name' ? ` (${target.host} resolved to it)` : '';
      return blocked(`${address} is a ${range} address${via}`, address);
    }
  }
  let lastError = '';
  for (const address of addresses) {
    try {
      const reader = protocol === 'http-forward' ? undefined : new DestinationReader();
      const socket = await connectTo(address, target.port, opener.connectTimeoutMs, reader);
      if (conn.closed || call.closed) {
        socket.destroy();
        return gone();
      }
      return { ok: true, socket, ...(reader ? { reader } : {}), address, decidedBy: decided.by };
    } catch (error) {
      lastError = `${address}: ${(error as Error).message}`;
    }
  }
  return unreachable(EgressErrorCode.EGRESS_CONNECT_FAILED, `could not connect to ${target.host}:${target.port} (${lastError})`);
}

function goneRefusal(conn: ClientConnection, call: CallState, decidedBy: string): Opened {
  return call.closed || !conn.closed
    ? { ok: false, code: EgressErrorCode.EGRESS_CALL_CLOSED, reason: 'the call was closed', decision: 'deny', decidedBy }
    : {
        ok: false,
        code: EgressErrorCode.EGRESS_CONNECT_FAILED,
        reason: 'the client left before the destination was open',
        decision: 'deny',
        decidedBy,
      };
}

function decisionFor(
  opener: Opener,
  conn: ClientConnection,
  call: CallState,
  target: EgressDestination,
  protocol: EgressProtocol,
): Promise<Decided> {
  const key = `${target.host}:${target.port}`;
  const remembered = opener.rememberDecisions ? call.decisions.get(key) : undefined;
  if (remembered) return remembered;
  const info = { id: conn.id, callId: call.callId, protocol, signal: call.controller.signal };
  const decided = Promise.resolve()
    .then(() => opener.decide(target, info))
    .then(validDecision, (error: unknown) => failedDecision(`the decider threw: ${String(error)}`));
  if (opener.rememberDecisions) call.decisions.set(key, decided);
  return decided;
}

function validDecision(answer: EgressDecision): Decided {
  if (answer === 'allow' || answer === 'deny') return { decision: answer, by: 'decide' };
  if (typeof answer === 'object' && answer !== null && (answer.decision === 'allow' || answer.decision === 'deny')) {
    const by = typeof answer.by === 'string' && answer.by !== '' ? answer.by : 'decide';
    return { decision: answer.decision, by, ...(typeof answer.reason === 'string' ? { reason: answer.reason } : {}) };
  }
  return failedDecision(`the decider answered ${JSON.stringify(answer)}, not "allow" or "deny"`);
}

function failedDecision(reason: string): Decided {
  return { decision: 'deny', by: 'egress', reason, code: EgressErrorCode.EGRESS_DECIDE_FAILED };
}

function connectTo(address: string, port: number, timeoutMs: number, reader: DestinationReader | undefined): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host: address, port, allowHalfOpen: true, ...(reader ? { onread: reader.onread } : {}) });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const onError = (error: Error) => {
      clearTimeout(timer);
      reject(error);
    };
    socket.once('error', onError);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.off('error', onError);
      // Whoever takes the socket listens for errors; until then one must not crash the proxy.
      socket.on('error', () => undefined);
      resolve(socket);
    });
  });
}
