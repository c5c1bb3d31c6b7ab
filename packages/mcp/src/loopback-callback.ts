import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The answer the authorization server sent to the loopback callback. */
export type CallbackAnswer = { readonly code: string } | { readonly error: string };

/**
 * A one-page HTTP server on 127.0.0.1 that receives the authorization
 * redirect (RFC 8252 loopback redirect): `?code=…&state=…` or `?error=…`.
 * A request whose `state` is not the expected one is refused and ignored.
 */
export class LoopbackCallback {
  readonly #server: Server;
  #expectedState: string | undefined;
  #waiter: ((answer: CallbackAnswer) => void) | undefined;
  #early: CallbackAnswer | undefined;

  private constructor(server: Server) {
    this.#server = server;
    server.on('request', (req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname !== '/callback') {
        res.writeHead(404).end();
        return;
      }
      const state = url.searchParams.get('state');
      if (this.#expectedState === undefined || state !== this.#expectedState) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('Unexpected authorization response (state does not match).');
        return;
      }
      const code = url.searchParams.get('code');
      const error = url.searchParams.get('error');
      const answer: CallbackAnswer = code !== null ? { code } : { error: error ?? 'no code in the redirect' };
      this.#expectedState = undefined; // a code is used once
      res
        .writeHead(200, { 'content-type': 'text/plain' })
        .end(code !== null ? 'Authorized. You can close this page.' : 'Authorization failed.');
      if (this.#waiter !== undefined) this.#waiter(answer);
      else this.#early = answer;
    });
  }

  /** Listens on 127.0.0.1:`port` (0: any free port); if that port is taken and `fallback` is set, on any free port. */
  static async listen(port: number, fallback: boolean): Promise<LoopbackCallback> {
    const server = createServer();
    server.unref(); // never keeps the process alive by itself
    try {
      await bind(server, port);
    } catch (error) {
      if (!fallback || port === 0) throw error;
      await bind(server, 0);
    }
    return new LoopbackCallback(server);
  }

  /** `http://127.0.0.1:<port>/callback`. */
  get redirectUrl(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/callback`;
  }

  /** Accepts the next callback carrying this `state`; an earlier pending one is dropped. */
  expect(state: string): void {
    this.#expectedState = state;
    this.#early = undefined;
  }

  /** Settles with the callback's answer, or rejects when the signal aborts first. */
  next(signal: AbortSignal): Promise<CallbackAnswer> {
    const early = this.#early;
    if (early !== undefined) {
      this.#early = undefined;
      return Promise.resolve(early);
    }
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.#waiter = undefined;
        reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiter = (answer) => {
        signal.removeEventListener('abort', onAbort);
        this.#waiter = undefined;
        resolve(answer);
      };
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }
}

function bind(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', onError);
      resolve();
    });
  });
}
