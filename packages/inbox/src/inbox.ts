import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApprovalProvider, ApprovalRequest, Host } from '@deepseek-ai/dsh-core';
import { type Answerer, type AnswerInput, type AnswerResult, answerInputSchema } from './answer.js';
import { type AnswerTarget, loggedAnswer, targetDecision } from './answer-target.js';
import { ApprovalDesk } from './approval-desk.js';
import { InboxError, InboxErrorCode } from './errors.js';
import { openEventStream } from './event-stream.js';
import { isLoopback, RequestGuard, securityHeaders } from './http-guard.js';
import { readJsonBody, sendError, sendJson } from './http-io.js';
import { type InboxReply, LiveHosts } from './live-host.js';
import { LogFolder, type LogFolderOptions } from './log-folder.js';
import { type InboxOptions, parseInboxOptions, type ResolvedInboxOptions } from './options.js';
import { type Asset, loadAssets } from './page-assets.js';
import { SessionStore } from './session-store.js';

const answerPath = /^\/api\/sessions\/([^/]+)\/calls\/([^/]+)\/answer$/;
const sessionPath = /^\/api\/sessions\/([^/]+)$/;

/**
 * The approval inbox: a local web page that lists agent sessions, shows each
 * as its cards, streams new events live and takes people's answers to the
 * approvals that wait. Create with {@link createInbox}, then `listen()`.
 */
export class Inbox {
  readonly #options: ResolvedInboxOptions;
  readonly #token: string | undefined;
  readonly #guard: RequestGuard;
  readonly #store: SessionStore;
  readonly #desk: ApprovalDesk;
  readonly #live: LiveHosts;
  readonly #folders: LogFolder[] = [];
  readonly #assets = loadAssets();
  #server: Server | undefined;
  #streams = 0;
  #url: string | undefined;

  constructor(options: InboxOptions = {}) {
    const o = parseInboxOptions(options);
    if (o.token === false && !isLoopback(o.host)) {
      throw new InboxError(
        InboxErrorCode.UNSAFE_BIND,
        `refusing to bind ${o.host} without a token: anyone who reaches it could run commands`,
      );
    }
    this.#options = o;
    this.#token = o.token === false ? undefined : (o.token ?? randomBytes(24).toString('base64url'));
    this.#guard = new RequestGuard(this.#token, isLoopback(o.host), o.authorize);
    this.#store = new SessionStore(o.retainEvents);
    this.#desk = new ApprovalDesk(o.retainAnswers);
    this.#live = new LiveHosts(this.#store, this.#desk);
  }

  /** The core approval provider: put it in `createHost({ approval })`, then `attach` the host. */
  get approval(): ApprovalProvider {
    // A remembered reply is only given to a request that offered one (the permissions plugin's prompt).
    return this.#live.approval as unknown as ApprovalProvider;
  }

  /** The same, typed as the permissions plugin's prompt: `createHost({ approval: perms.approval(inbox.prompt) })` offers "allow always". */
  get prompt(): (request: ApprovalRequest) => Promise<InboxReply> {
    return this.#live.approval;
  }

  /** The secret token, or `undefined` when it is off. */
  get token(): string | undefined {
    return this.#token;
  }

  /** The URL to open (with the token, once), after `listen()`. */
  get url(): string {
    if (this.#url === undefined) throw new InboxError(InboxErrorCode.NOT_FOUND, 'the inbox is not listening yet', { status: 500 });
    return this.#url;
  }

  /** Shows a live host's session; its approval requests wait here when its provider is {@link Inbox.approval}. Returns the way to detach. */
  attach(host: Host, options: { label?: string } = {}): () => void {
    return this.#live.attach(host, options.label);
  }

  /**
   * Shows every JSONL session log in a folder, tailing the ones that grow. Returns the way to stop.
   * With `answers` (a durable engine's worker writes the folder: `source` `restate` or `dbos`), the
   * approvals its sessions wait on are answered through that target.
   */
  async watchLogs(dir: string, options: LogFolderOptions = {}): Promise<() => Promise<void>> {
    const folder = new LogFolder(dir, this.#store, this.#options.pollMs, options);
    this.#folders.push(folder);
    await folder.start();
    return () => folder.stop();
  }

  /** Answers a waiting call as `who` (what the page's button does). */
  async answer(session: string, call: string, input: AnswerInput, who: Answerer = { by: 'api', from: 'api' }): Promise<AnswerResult> {
    const parsed = answerInputSchema.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new InboxError(InboxErrorCode.BAD_REQUEST, `invalid answer ${issue?.path.join('.') || ''}: ${issue?.message ?? ''}`.trim());
    }
    if (!this.#store.has(session)) throw new InboxError(InboxErrorCode.UNKNOWN_SESSION, `no session ${session}`, { status: 404 });
    const target = this.#targetOf(session);
    if (target !== undefined && this.#store.isAsking(session, call) && !this.#desk.isWaiting(session, call)) {
      const decision = targetDecision(parsed.data, target);
      this.#desk.wait(session, call, { settle: (input, by) => this.#deliver(target, session, call, decision, input.message, by) });
    }
    const result = await this.#desk.answer(session, call, parsed.data, who);
    if (result !== undefined) {
      if (result.status === 'already-answered') {
        throw new InboxError(InboxErrorCode.ALREADY_ANSWERED, `already answered: ${result.answer.decision} by ${result.answer.by}`, {
          status: 409,
          data: { answer: result.answer },
        });
      }
      return result;
    }
    const gone = this.#desk.goneReason(session, call);
    if (gone !== undefined) throw notWaiting(`call ${call} no longer waits: ${gone}`);
    if (!this.#store.hasCall(session, call))
      throw new InboxError(InboxErrorCode.UNKNOWN_CALL, `session ${session} has no call ${call}`, { status: 404 });
    if (this.#store.isEnded(session)) throw notWaiting(`call ${call} no longer waits: its session ended`);
    if (this.#store.isAsking(session, call)) {
      throw new InboxError(
        InboxErrorCode.NOT_ANSWERABLE,
        `call ${call} waits for an answer this inbox cannot give (answer it where the session runs)`,
        {
          status: 409,
        },
      );
    }
    throw notWaiting(`call ${call} is not waiting for approval`);
  }

  /** The answer target of a folder that shows `session`, if it has one. */
  #targetOf(session: string): AnswerTarget | undefined {
    return this.#folders.find((f) => f.answers !== undefined && f.shows(session))?.answers;
  }

  /** Hands a page's answer to the engine; an earlier answer there (another person, the deadline) is refused with it. */
  async #deliver(
    target: AnswerTarget,
    session: string,
    call: string,
    decision: 'allow' | 'deny',
    message: string | undefined,
    who: Answerer,
  ) {
    const { status } = await target.deliver(session, call, decision, message, who);
    if (status !== 'already-answered') return;
    const standing = loggedAnswer(this.#store.events(session)?.events ?? [], call);
    if (standing !== undefined) this.#desk.recordElsewhere(session, call, standing);
    throw new InboxError(
      InboxErrorCode.ALREADY_ANSWERED,
      `already answered${standing === undefined ? ` elsewhere (${target.label} keeps the first answer)` : `: ${standing.decision} by ${standing.by}`}`,
      { status: 409, ...(standing === undefined ? {} : { data: { answer: standing } }) },
    );
  }

  /** Starts serving; resolves with the URL to open (holding the token, printed once). */
  async listen(): Promise<string> {
    const server = createServer((req, res) => {
      void this.#handle(req, res);
    });
    server.maxConnections = this.#options.maxStreams * 2;
    server.headersTimeout = 30_000;
    server.requestTimeout = 60_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#options.port, this.#options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.#server = server;
    const port = (server.address() as AddressInfo).port;
    this.#guard.port = port;
    const host = this.#options.host.includes(':') ? `[${this.#options.host}]` : this.#options.host;
    this.#url = `http://${host}:${port}/${this.#token === undefined ? '' : `?token=${this.#token}`}`;
    return this.#url;
  }

  /** Stops serving, detaches live hosts and stops tailing logs. */
  async close(): Promise<void> {
    this.#live.detachAll();
    await Promise.all(this.#folders.map((f) => f.stop()));
    const server = this.#server;
    this.#server = undefined;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    securityHeaders(res);
    try {
      const url = new URL(req.url ?? '/', 'http://inbox.invalid');
      const method = req.method ?? 'GET';
      if (method === 'POST') {
        const match = answerPath.exec(url.pathname);
        if (match === null) throw new InboxError(InboxErrorCode.NOT_FOUND, `no such endpoint ${url.pathname}`, { status: 404 });
        const visitor = await this.#guard.check(req, 'answer');
        const body = await readJsonBody(req, this.#options.maxBodyBytes);
        const result = await this.answer(decodeURIComponent(match[1] ?? ''), decodeURIComponent(match[2] ?? ''), body as AnswerInput, {
          by: visitor.user,
          from: visitor.from,
        });
        sendJson(res, 200, result);
        return;
      }
      if (method !== 'GET' && method !== 'HEAD') {
        throw new InboxError(InboxErrorCode.NOT_FOUND, `method ${method} is not served`, { status: 405 });
      }
      const queryToken = url.pathname === '/' ? (url.searchParams.get('token') ?? undefined) : undefined;
      await this.#guard.check(req, 'view', queryToken);
      if (queryToken !== undefined) {
        // The token leaves the address bar (and history) for a cookie that scripts cannot read.
        res.writeHead(303, { Location: '/', 'Set-Cookie': this.#guard.cookieFor(queryToken) });
        res.end();
        return;
      }
      this.#get(url, res);
    } catch (error) {
      sendError(res, error);
    }
  }

  #get(url: URL, res: ServerResponse): void {
    const asset: Asset | undefined = this.#assets.get(url.pathname);
    if (asset !== undefined) {
      res.writeHead(200, { 'Content-Type': asset.type, 'Content-Length': asset.body.length });
      res.end(asset.body);
      return;
    }
    if (url.pathname === '/api/sessions') {
      sendJson(res, 200, { sessions: this.#store.sessions() });
      return;
    }
    if (url.pathname === '/api/stream') {
      if (this.#streams >= this.#options.maxStreams) {
        throw new InboxError(InboxErrorCode.TOO_MANY_STREAMS, `${this.#streams} pages are open; close one`, { status: 503 });
      }
      this.#streams += 1;
      openEventStream(res, this.#store, url.searchParams.get('session') ?? undefined, () => {
        this.#streams -= 1;
      });
      return;
    }
    const match = sessionPath.exec(url.pathname);
    if (match !== null) {
      const id = decodeURIComponent(match[1] ?? '');
      const kept = this.#store.events(id);
      if (kept === undefined) throw new InboxError(InboxErrorCode.UNKNOWN_SESSION, `no session ${id}`, { status: 404 });
      sendJson(res, 200, { summary: this.#store.summary(id), events: kept.events, dropped: kept.dropped });
      return;
    }
    throw new InboxError(InboxErrorCode.NOT_FOUND, `nothing at ${url.pathname}`, { status: 404 });
  }
}

function notWaiting(message: string): InboxError {
  return new InboxError(InboxErrorCode.NOT_WAITING, message, { status: 410 });
}

/** Creates an inbox (options validated: `INBOX_INVALID_OPTIONS`, `INBOX_UNSAFE_BIND`); call `listen()` to serve it. */
export function createInbox(options: InboxOptions = {}): Inbox {
  return new Inbox(options);
}
