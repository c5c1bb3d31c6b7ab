import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { WebErrorCode, webError } from '../errors.js';
import type { PinnedTarget } from '../target-policy.js';

/** What every request of a fetch carries. */
export interface RequestSettings {
  readonly headers: Readonly<Record<string, string>>;
  /** The certificates HTTPS trusts, when not only Node's own. */
  readonly ca?: readonly string[];
}

/**
 * Sends one GET to a pinned target and resolves with the response head.
 *
 * Why `node:http`/`node:https` and not the global `fetch`: Node's fetch
 * (undici) offers no per-request hook for the address it connects to unless
 * the `undici` package is imported for its `Agent`. Here the request's
 * `lookup` answers with the address the policy already checked, so the
 * socket connects there and nowhere else: no second DNS lookup, no
 * rebinding window. The URL's host name still goes into the `Host` header
 * and into TLS (SNI and certificate check), so HTTPS verifies the name.
 * `agent: false` gives each request its own socket: a pooled socket opened
 * for another address is never reused.
 */
export function sendGet(target: PinnedTarget, request: RequestSettings, signal: AbortSignal): Promise<IncomingMessage> {
  const { url, address, family } = target;
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all === true) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const options: RequestOptions = {
    method: 'GET',
    hostname: target.host,
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers: request.headers,
    family,
    lookup,
    agent: false,
    ...(request.ca === undefined ? {} : { ca: request.ca }),
  };
  return new Promise((resolve, reject) => {
    signal.throwIfAborted();
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(options);
    const onAbort = () => req.destroy(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    req.once('response', (res) => {
      signal.removeEventListener('abort', onAbort);
      resolve(res);
    });
    req.once('error', (error) => {
      signal.removeEventListener('abort', onAbort);
      reject(signal.aborted ? signal.reason : connectionError(url, error));
    });
    req.end();
  });
}

/** A connection problem as a coded error, with the OS code when there is one. */
export function connectionError(url: URL, error: unknown): Error {
  const code = (error as { code?: unknown } | null)?.code;
  const os = typeof code === 'string' ? code : undefined;
  return webError(
    WebErrorCode.CONNECTION_FAILED,
    `${url.origin}: ${(error as Error)?.message ?? String(error)}`,
    os === undefined ? { url: url.href } : { url: url.href, os },
  );
}

/** The first value of a header, lower-cased keys as Node gives them. */
export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
