import { createServer, type IncomingMessage, request, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { EgressErrorCode } from '../errors.js';
import { authorityOf, type HostAndPort, parseAuthority } from '../host-name.js';
import type { CallState, ClientConnection } from './connection.js';
import { openDestination } from './open-destination.js';
import { isRefusal, type ProxyCore, type Refusal, recordRefusal, tunnelOpened } from './proxy-core.js';

const statusOf: Record<string, number> = {
  EGRESS_DENIED: 403,
  EGRESS_DECIDE_FAILED: 403,
  EGRESS_BLOCKED_ADDRESS: 403,
  EGRESS_UNKNOWN_CALL: 407,
  EGRESS_BAD_REQUEST: 400,
  EGRESS_HOST_MISMATCH: 400,
  EGRESS_RESOLVE_FAILED: 502,
  EGRESS_CONNECT_FAILED: 502,
  EGRESS_TOO_MANY_CONNECTIONS: 503,
  EGRESS_CALL_CLOSED: 503,
};

// Hop-by-hop headers (RFC 9110 7.6.1) and the proxy's own credentials never travel on.
const hopByHop = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'upgrade',
]);

/** The HTTP side of the proxy: CONNECT tunnels and plain-http forwarding. */
export function createHttpFront(core: ProxyCore, connectionOf: (socket: Socket) => ClientConnection | undefined): Server {
  const server = createServer({ maxHeaderSize: core.maxHeaderBytes, requestTimeout: 0, keepAliveTimeout: 5_000 });
  server.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const conn = connectionOf(socket);
    if (conn) void handleConnect(core, conn, req, socket, head);
    else socket.destroy();
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const conn = connectionOf(req.socket);
    if (conn) void handleForward(core, conn, req, res);
    else req.socket.destroy();
  });
  server.on('upgrade', (_req: IncomingMessage, socket: Socket) => {
    socket.end(refusalText(400, EgressErrorCode.EGRESS_BAD_REQUEST, 'upgrades are not forwarded; use CONNECT'));
  });
  server.on('clientError', (_error: Error, socket: Socket) => {
    if (socket.writable) socket.end(refusalText(400, EgressErrorCode.EGRESS_BAD_REQUEST, 'a malformed request'));
    socket.destroy();
  });
  return server;
}

function refusalText(status: number, code: string, reason: string, extra = ''): string {
  const body = `${reason}\n`;
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nX-Egress-Code: ${code}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n${extra}\r\n${body}`
  );
}

const authenticate = 'Proxy-Authenticate: Basic realm="dsh-egress"\r\n';

/** The username of `Proxy-Authorization: Basic …`: the call's token. */
function tokenOf(req: IncomingMessage): string | undefined {
  const header = req.headers['proxy-authorization'];
  const match = typeof header === 'string' ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (!match?.[1]) return undefined;
  const text = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = text.indexOf(':');
  return decodeURIComponent(colon < 0 ? text : text.slice(0, colon));
}

/** A Host header, when present, must name the request's own authority. */
function hostMismatch(req: IncomingMessage, target: HostAndPort, defaultPort: number): Refusal | undefined {
  const header = req.headers.host;
  if (header === undefined) return undefined;
  const host = parseAuthority(header, defaultPort);
  if (host && host.host === target.host && host.port === target.port) return undefined;
  return { code: EgressErrorCode.EGRESS_HOST_MISMATCH, reason: `the Host header ${JSON.stringify(header)} is not ${authorityOf(target)}` };
}

async function handleConnect(core: ProxyCore, conn: ClientConnection, req: IncomingMessage, socket: Socket, head: Buffer): Promise<void> {
  const startedAt = Date.now();
  core.headComplete(conn);
  socket.on('error', () => undefined);
  const refuse = (refusal: Refusal, extra = '') =>
    socket.end(refusalText(statusOf[refusal.code] ?? 403, refusal.code, refusal.reason, extra));
  const call = core.attribute(conn, tokenOf(req));
  if (isRefusal(call)) {
    recordRefusal(core, conn, 'http-connect', startedAt, call);
    return void refuse(call, call.code === EgressErrorCode.EGRESS_UNKNOWN_CALL ? authenticate : '');
  }
  const target = parseAuthority(req.url ?? '');
  const bad = target
    ? hostMismatch(req, target, target.port)
    : { code: EgressErrorCode.EGRESS_BAD_REQUEST, reason: `${JSON.stringify(req.url)} is no host:port` };
  if (bad || !target) {
    recordRefusal(core, conn, 'http-connect', startedAt, bad ?? { code: EgressErrorCode.EGRESS_BAD_REQUEST, reason: 'no target' }, target);
    return void refuse(bad ?? { code: EgressErrorCode.EGRESS_BAD_REQUEST, reason: 'no target' });
  }
  const opened = await openDestination(core.opener, conn, call, target, 'http-connect');
  if (!opened.ok) {
    recordRefusal(core, conn, 'http-connect', startedAt, opened, target);
    return void refuse(opened);
  }
  socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
  tunnelOpened(core, conn, opened, { client: socket, head, target, protocol: 'http-connect', startedAt });
}

async function handleForward(core: ProxyCore, conn: ClientConnection, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const startedAt = Date.now();
  core.headComplete(conn);
  const refuse = (refusal: Refusal, target?: HostAndPort) => {
    recordRefusal(core, conn, 'http-forward', startedAt, refusal, target);
    res.writeHead(statusOf[refusal.code] ?? 403, {
      'x-egress-code': refusal.code,
      'content-type': 'text/plain; charset=utf-8',
      connection: 'close',
      ...(refusal.code === EgressErrorCode.EGRESS_UNKNOWN_CALL ? { 'proxy-authenticate': 'Basic realm="dsh-egress"' } : {}),
    });
    res.end(`${refusal.reason}\n`);
  };
  const call = core.attribute(conn, tokenOf(req));
  if (isRefusal(call)) return refuse(call);
  let url: URL | undefined;
  try {
    url = new URL(req.url ?? '');
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'http:') {
    return refuse({
      code: EgressErrorCode.EGRESS_BAD_REQUEST,
      reason: 'a proxy request needs an absolute http:// URL (use CONNECT for https)',
    });
  }
  const target = parseAuthority(url.host, 80);
  if (!target) return refuse({ code: EgressErrorCode.EGRESS_BAD_REQUEST, reason: `${url.host} is no usable host` });
  const mismatch = hostMismatch(req, target, 80);
  if (mismatch) return refuse(mismatch, target);
  const opened = await openDestination(core.opener, conn, call, target, 'http-forward');
  if (!opened.ok) return refuse(opened, target);
  forward(core, conn, call, req, res, { target, path: `${url.pathname}${url.search}`, opened, startedAt });
}

function withoutHopByHop(raw: readonly string[]): string[] {
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]?.toLowerCase() === 'connection') for (const name of (raw[i + 1] ?? '').split(',')) named.add(name.trim().toLowerCase());
  }
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]?.toLowerCase() ?? '';
    if (!hopByHop.has(name) && !named.has(name)) kept.push(raw[i] ?? '', raw[i + 1] ?? '');
  }
  return kept;
}

function forward(
  core: ProxyCore,
  conn: ClientConnection,
  _call: CallState,
  req: IncomingMessage,
  res: ServerResponse,
  spec: {
    target: HostAndPort;
    path: string;
    opened: Extract<Awaited<ReturnType<typeof openDestination>>, { ok: true }>;
    startedAt: number;
  },
): void {
  let bytesUp = 0;
  let bytesDown = 0;
  let done = false;
  const finish = (code?: EgressErrorCode, reason?: string) => {
    if (done) return;
    done = true;
    conn.closers.delete(finish);
    if (code !== undefined) {
      upstream.destroy();
      spec.opened.socket.destroy();
      if (!res.headersSent) res.writeHead(statusOf[code] ?? 502, { 'x-egress-code': code, connection: 'close' });
      res.destroy();
    }
    core.record(conn, {
      protocol: 'http-forward',
      startedAt: spec.startedAt,
      target: spec.target,
      address: spec.opened.address,
      decision: 'allow',
      decidedBy: spec.opened.decidedBy,
      code,
      reason,
      bytesUp,
      bytesDown,
    });
  };
  conn.closers.add(finish);
  const upstream = request({
    createConnection: () => spec.opened.socket,
    method: req.method,
    path: spec.path,
    headers: withoutHopByHop(req.rawHeaders),
    setHost: false,
  });
  if (req.headers.host === undefined) upstream.setHeader('host', authorityOf(spec.target));
  spec.opened.socket.setTimeout(core.idleTimeoutMs, () =>
    finish(EgressErrorCode.EGRESS_IDLE_TIMEOUT, `no traffic for ${core.idleTimeoutMs} ms`),
  );
  upstream.on('error', (error) => finish(EgressErrorCode.EGRESS_CONNECT_FAILED, `the destination failed: ${error.message}`));
  upstream.on('response', (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.statusMessage, withoutHopByHop(answer.rawHeaders));
    answer.on('data', (chunk: Buffer) => {
      bytesDown += chunk.length;
    });
    answer.pipe(res);
    answer.on('end', () => finish());
    answer.on('error', () => finish(EgressErrorCode.EGRESS_CONNECT_FAILED, 'the destination ended the response early'));
  });
  req.on('data', (chunk: Buffer) => {
    bytesUp += chunk.length;
  });
  req.pipe(upstream);
  res.on('close', () => {
    if (!res.writableFinished) finish(EgressErrorCode.EGRESS_CONNECT_FAILED, 'the client left before the response ended');
  });
}
