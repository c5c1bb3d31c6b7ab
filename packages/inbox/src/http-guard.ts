import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { InboxError, InboxErrorCode } from './errors.js';
import type { AuthorizeHook, InboxAction } from './options.js';

/** The Content-Security-Policy of every answer: own scripts and styles only, no inline code, no framing. */
export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers on every answer, errors included. */
export function securityHeaders(res: ServerResponse): void {
  res.setHeader('Content-Security-Policy', contentSecurityPolicy);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cache-Control', 'no-store');
}

/** Who a request is, once {@link RequestGuard.check} let it through. */
export interface Visitor {
  readonly user: string;
  readonly from: string;
}

/**
 * The inbox's door: the secret token (from the cookie, an `Authorization:
 * Bearer` header, or the first URL), the Host header on loopback binds (DNS
 * rebinding), the same-origin check on state changes, and the platform's
 * `authorize` hook.
 */
export class RequestGuard {
  readonly #token: Buffer | undefined;
  #port = 0;

  constructor(
    token: string | undefined,
    private readonly loopback: boolean,
    private readonly authorize: AuthorizeHook | undefined,
  ) {
    this.#token = token === undefined ? undefined : Buffer.from(token);
  }

  set port(port: number) {
    this.#port = port;
  }

  /** The cookie's name carries the port: browsers share cookies between ports of one host. */
  get cookieName(): string {
    return `dsh-inbox-${this.#port}`;
  }

  /** True when `candidate` is the token (compared in constant time). */
  tokenMatches(candidate: string | undefined): boolean {
    if (this.#token === undefined) return true;
    if (candidate === undefined) return false;
    const given = Buffer.from(candidate);
    return given.length === this.#token.length && timingSafeEqual(given, this.#token);
  }

  cookieFor(token: string): string {
    return `${this.cookieName}=${token}; HttpOnly; SameSite=Strict; Path=/`;
  }

  async check(req: IncomingMessage, action: InboxAction, queryToken?: string): Promise<Visitor> {
    this.#checkHost(req);
    if (!this.tokenMatches(queryToken ?? this.#presented(req))) {
      throw new InboxError(InboxErrorCode.UNAUTHORIZED, 'a valid inbox token is required: open the URL the inbox printed', { status: 401 });
    }
    if (action === 'answer') this.#checkSameOrigin(req);
    let user = 'token holder';
    if (this.authorize !== undefined) {
      let verdict: Awaited<ReturnType<AuthorizeHook>>;
      try {
        verdict = await this.authorize(req, action);
      } catch {
        verdict = false;
      }
      if (verdict === false) throw new InboxError(InboxErrorCode.FORBIDDEN, `not authorized to ${action}`, { status: 403 });
      if (typeof verdict === 'object' && typeof verdict.user === 'string') user = verdict.user;
    }
    return { user, from: fromOf(req) };
  }

  #presented(req: IncomingMessage): string | undefined {
    const auth = req.headers.authorization;
    if (auth?.startsWith('Bearer ')) return auth.slice(7);
    const cookies = req.headers.cookie;
    if (cookies === undefined) return undefined;
    for (const part of cookies.split(';')) {
      const eq = part.indexOf('=');
      if (eq > 0 && part.slice(0, eq).trim() === this.cookieName) return part.slice(eq + 1).trim();
    }
    return undefined;
  }

  #checkHost(req: IncomingMessage): void {
    if (!this.loopback) return;
    const host = req.headers.host ?? '';
    const allowed = [`127.0.0.1:${this.#port}`, `localhost:${this.#port}`, `[::1]:${this.#port}`];
    if (!allowed.includes(host.toLowerCase())) {
      throw new InboxError(InboxErrorCode.FORBIDDEN, `unexpected Host header "${host}" (the inbox answers loopback names only)`, {
        status: 403,
      });
    }
  }

  #checkSameOrigin(req: IncomingMessage): void {
    const origin = req.headers.origin;
    const site = req.headers['sec-fetch-site'];
    const expected = `http://${req.headers.host ?? ''}`;
    const bearer = req.headers.authorization?.startsWith('Bearer ') === true;
    // Scripts that present the token in a header are not browsers riding a cookie; browsers always send Origin on POST.
    if (bearer && origin === undefined) return;
    if (origin !== expected || (site !== undefined && site !== 'same-origin')) {
      throw new InboxError(InboxErrorCode.CROSS_ORIGIN, `cross-origin request refused (Origin ${origin ?? 'missing'})`, { status: 403 });
    }
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
      throw new InboxError(InboxErrorCode.BAD_REQUEST, 'answers must be sent as application/json', { status: 415 });
    }
  }
}

function fromOf(req: IncomingMessage): string {
  const agent = req.headers['user-agent'];
  const browser = agent === undefined ? 'no user agent' : agent.slice(0, 120);
  return `${req.socket.remoteAddress ?? 'unknown address'} (${browser})`;
}

/** Whether an address is the loopback interface. */
export function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === '::1' || host === 'localhost' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
