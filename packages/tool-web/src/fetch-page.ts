import type { IncomingMessage } from 'node:http';
import { type ContentKind, contentKind, mediaType } from './content-kind.js';
import { WebErrorCode, webError } from './errors.js';
import { header, type RequestSettings, sendGet } from './internal/pinned-request.js';
import { readBody } from './internal/read-body.js';
import type { TargetPolicy } from './target-policy.js';

/** What one fetch needs: the policy, the caps and the call's signal. */
export interface FetchPageOptions {
  readonly policy: TargetPolicy;
  readonly maxBytes: number;
  readonly maxRedirects: number;
  readonly followRedirectsAcrossHosts: boolean;
  readonly timeoutMs: number;
  readonly request: RequestSettings;
  /** The call's signal; aborting it stops the request with `ABORTED`. */
  readonly signal: AbortSignal;
}

/** A body fetched and read, not yet decoded. */
export interface FetchedPage {
  /** The URL of the response, after redirects. */
  readonly url: URL;
  readonly status: number;
  readonly contentType: string;
  readonly kind: ContentKind;
  readonly body: Buffer;
  /** Every URL redirected to, in order. */
  readonly redirects: readonly string[];
  /** The address the final response came from. */
  readonly address: string;
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/**
 * GETs a URL under the policy: each hop is parsed, resolved once, checked
 * and pinned; redirects are followed up to the limit and never to a URL
 * already visited; binary and oversized bodies are refused before they are
 * read whenever the headers tell. One deadline covers every hop and the body.
 */
export async function fetchPage(rawUrl: string, options: FetchPageOptions): Promise<FetchedPage> {
  const { policy, maxBytes, maxRedirects, timeoutMs } = options;
  let url = policy.parse(rawUrl);
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(webError(WebErrorCode.TOOL_TIMEOUT, `fetching ${url.href} took longer than ${timeoutMs} ms`, { timeoutMs })),
    timeoutMs,
  );
  const onAbort = () => controller.abort(webError(WebErrorCode.ABORTED, `the fetch of ${url.href} was aborted`));
  if (options.signal.aborted) onAbort();
  else options.signal.addEventListener('abort', onAbort, { once: true });
  const signal = controller.signal;
  try {
    const seen = new Set([url.href]);
    const redirects: string[] = [];
    for (;;) {
      const target = await policy.admit(url, signal);
      const res = await sendGet(target, options.request, signal);
      const status = res.statusCode ?? 0;
      if (redirectStatuses.has(status)) {
        const location = header(res.headers, 'location');
        res.destroy();
        if (location === undefined || location.trim() === '')
          throw webError(WebErrorCode.BAD_REDIRECT, `${url.href} answered ${status} without a Location`, { url: url.href, status });
        if (redirects.length >= maxRedirects)
          throw webError(WebErrorCode.TOO_MANY_REDIRECTS, `more than ${maxRedirects} redirects, starting at ${rawUrl}`, {
            redirects: [...redirects],
          });
        const next = policy.parse(location, url);
        if (!options.followRedirectsAcrossHosts && !sameHost(next, url))
          throw webError(
            WebErrorCode.REDIRECT_TO_OTHER_HOST,
            `${url.href} redirects to ${next.href}, on another host; to follow it, call web_fetch again with that URL`,
            { location: next.href, status },
          );
        if (seen.has(next.href))
          throw webError(WebErrorCode.REDIRECT_LOOP, `${url.href} redirects back to ${next.href}, which was already visited`, {
            redirects: [...redirects, next.href],
          });
        seen.add(next.href);
        redirects.push(next.href);
        url = next;
        continue;
      }
      return await finish(res, url, status, redirects, target.address, maxBytes, signal);
    }
  } catch (error) {
    throw signal.aborted ? signal.reason : error;
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', onAbort);
  }
}

/** Same host name, allowing for a `www.` added or dropped (the redirect most sites make). */
function sameHost(a: URL, b: URL): boolean {
  const bare = (u: URL) => u.hostname.replace(/^www\./, '');
  return bare(a) === bare(b);
}

async function finish(
  res: IncomingMessage,
  url: URL,
  status: number,
  redirects: readonly string[],
  address: string,
  maxBytes: number,
  signal: AbortSignal,
): Promise<FetchedPage> {
  const contentType = header(res.headers, 'content-type') ?? '';
  if (status >= 400) {
    res.destroy();
    throw webError(WebErrorCode.HTTP_STATUS, `${url.href} answered ${status} ${res.statusMessage ?? ''}`.trim(), {
      url: url.href,
      status,
    });
  }
  const kind = contentKind(contentType);
  if (kind === 'binary') {
    res.destroy();
    throw webError(WebErrorCode.BINARY_CONTENT, `${url.href} is ${mediaType(contentType)}, not text; only text is fetched`, {
      contentType: mediaType(contentType),
    });
  }
  const declared = Number(header(res.headers, 'content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.destroy();
    throw webError(WebErrorCode.BODY_TOO_LARGE, `${url.href} declares ${declared} bytes, more than the cap of ${maxBytes}`, {
      limit: maxBytes,
      declared,
    });
  }
  const body = await readBody(res, { maxBytes, sniffBinary: kind === 'unknown', signal, url });
  return { url, status, contentType, kind, body, redirects, address };
}
