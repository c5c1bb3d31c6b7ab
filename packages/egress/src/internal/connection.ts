import type { Server, Socket } from 'node:net';
import type { EgressErrorCode } from '../errors.js';

/** An open call: its token, its connections and the decisions it already has. */
export interface CallState {
  readonly callId: string;
  readonly token: string;
  readonly connections: Set<ClientConnection>;
  readonly decisions: Map<string, Promise<Decided>>;
  readonly controller: AbortController;
  listener?: Server;
  socketPath?: string;
  closed: boolean;
}

/** A decider's answer after validation. */
export interface Decided {
  readonly decision: 'allow' | 'deny';
  readonly by: string;
  readonly reason?: string;
  readonly code?: EgressErrorCode;
}

/** One client connection to the proxy, from accept to close. */
export class ClientConnection {
  /** The call it belongs to, once known (at once on a call's own socket). */
  call: CallState | undefined;
  closed = false;
  handshakeTimer: NodeJS.Timeout | undefined;
  /** Active tunnels and forwarded requests: each ends itself with the code it is given. */
  readonly closers = new Set<(code: EgressErrorCode) => void>();

  constructor(
    readonly id: number,
    readonly socket: Socket,
    /** Set when the client came through a call's own socket: no token needed. */
    readonly fixedCall: CallState | undefined,
  ) {
    this.call = fixedCall;
  }

  /** Ends everything the connection carries, then the socket. */
  end(code: EgressErrorCode): void {
    for (const close of [...this.closers]) close(code);
    this.socket.destroy();
  }
}
