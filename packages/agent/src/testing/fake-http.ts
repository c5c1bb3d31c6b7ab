import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the fake server received, body parsed as JSON. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: unknown;
}

/** One SSE frame: `event:` when named, `data:` as JSON (or raw text when a string is given). */
export interface SseFrame {
  readonly event?: string;
  readonly data: unknown;
}

/** A reply: a JSON body (with a status and headers), an SSE stream of frames, or a connection reset. */
export type FakeReply =
  | { readonly status?: number; readonly headers?: Readonly<Record<string, string>>; readonly json: unknown }
  | { readonly sse: readonly SseFrame[] }
  | 'reset';

/** A fake provider API on 127.0.0.1. `problems` lists every check the client's requests failed. */
export interface FakeServer {
  readonly url: string;
  readonly requests: RecordedRequest[];
  readonly problems: string[];
  /** Settles once `count` requests have arrived. */
  received(count: number): Promise<void>;
  close(): Promise<void>;
}

/** Thrown by a handler to fail the request with a 400, as the real API would, and record the problem. */
export class WireProblem extends Error {}

/**
 * Starts a server on 127.0.0.1 with a random port. `handle` answers each
 * request; a `WireProblem` it throws is recorded and answered with
 * `errorBody(message)` and status 400. `holdOpen` requests (by index) are
 * answered only when the client gives up, to test aborts.
 */
export async function startFakeServer(
  handle: (request: RecordedRequest, index: number) => FakeReply | 'hang',
  errorBody: (message: string, type?: string, status?: number) => unknown,
): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const problems: string[] = [];
  const open = new Set<ServerResponse>();
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: unknown;
      try {
        body = chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = Buffer.concat(chunks).toString('utf8');
      }
      const request: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      requests.push(request);
      for (const w of waiters.filter((w) => requests.length >= w.count)) w.resolve();
      let reply: FakeReply | 'hang';
      try {
        reply = handle(request, requests.length - 1);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        problems.push(`request ${requests.length - 1}: ${message}`);
        reply = { status: 400, json: errorBody(message) };
      }
      if (reply === 'reset') {
        // The socket dies with no response: what a client sees as ECONNRESET.
        req.socket.destroy();
        return;
      }
      if (reply === 'hang') {
        open.add(res);
        res.on('close', () => open.delete(res));
        return;
      }
      send(res, reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    problems,
    received: (count) => (requests.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve }))),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(res: ServerResponse, reply: Exclude<FakeReply, 'reset'>): void {
  if ('json' in reply) {
    const text = JSON.stringify(reply.json);
    res.writeHead(reply.status ?? 200, {
      ...reply.headers,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const frame of reply.sse) {
    const data = typeof frame.data === 'string' ? frame.data : JSON.stringify(frame.data);
    res.write(`${frame.event === undefined ? '' : `event: ${frame.event}\n`}data: ${data}\n\n`);
  }
  res.end();
}

/** A turn a fake server plays: text, reasoning, tool calls (JSON text arguments), the provider's stop word. */
export interface ScriptedTurn {
  readonly text?: string;
  /** Reasoning the server sends and then expects back unchanged in every later request. */
  readonly reasoning?: string;
  readonly calls?: readonly { readonly id?: string; readonly name: string; readonly args: string }[];
  /** The provider's own stop word, overriding the one the server derives. */
  readonly finish?: string;
  /** The client waits forever for this turn (until it aborts). */
  readonly hang?: boolean;
  /**
   * This request fails: an HTTP error in the provider's error format (with
   * headers such as `retry-after`), or `'reset'`, a connection closed with no
   * response. The request is still checked; nothing is served.
   */
  readonly fail?: ScriptedFailure | 'reset';
  /** More checks on the request this turn answers; throw `WireProblem` to fail it. */
  readonly check?: (body: Record<string, unknown>) => void;
}

/** Throws a `WireProblem` unless `ok`. */
export function expectWire(ok: boolean, message: string): asserts ok {
  if (!ok) throw new WireProblem(message);
}

/** JSON text with object keys sorted: equal for values that differ only in key order (SDKs re-serialise). */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** An HTTP error a fake server answers with. */
export interface ScriptedFailure {
  readonly status: number;
  /** The provider's error type (`rate_limit_error`, `RESOURCE_EXHAUSTED`, …). */
  readonly type?: string;
  readonly message?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** The whole error body, instead of the provider's format filled with `type` and `message`. */
  readonly body?: unknown;
}

/** The reply for a scripted failure, in the provider's error format. */
export function failureReply(
  fail: ScriptedFailure | 'reset',
  errorBody: (message: string, type?: string, status?: number) => unknown,
): FakeReply {
  if (fail === 'reset') return 'reset';
  const json = fail.body ?? errorBody(fail.message ?? `scripted ${fail.status}`, fail.type, fail.status);
  const reply = { status: fail.status, json };
  return fail.headers === undefined ? reply : { ...reply, headers: fail.headers };
}
