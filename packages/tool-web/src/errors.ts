import { ToolError } from '@deepseek-ai/dsh-core';

/**
 * Stable codes of tool-web. Each is the `error.code` of a `web_fetch` or
 * `web_search` outcome (with details in `error.data`), except
 * `INVALID_OPTIONS`, which the `toolWeb` factory throws. `TOOL_TIMEOUT` and
 * `ABORTED` are core's own codes, reused so that a stopped fetch reads the
 * same whoever stopped it.
 */
export const WebErrorCode = {
  /** The URL does not parse. */
  INVALID_URL: 'WEB_INVALID_URL',
  /** The scheme is not `http:` or `https:`. */
  SCHEME_REFUSED: 'WEB_SCHEME_REFUSED',
  /** The URL carries a user name or password. */
  CREDENTIALS_REFUSED: 'WEB_CREDENTIALS_REFUSED',
  /** The port is not in the `ports` option. */
  PORT_REFUSED: 'WEB_PORT_REFUSED',
  /** The host is an IPv4 address in another spelling (decimal, octal, hex, fewer parts, escaped). */
  IP_SPELLING_REFUSED: 'WEB_IP_SPELLING_REFUSED',
  /** The host is, or resolves to, a refused address (loopback, private, metadata, …); `data.category` says which. */
  ADDRESS_REFUSED: 'WEB_ADDRESS_REFUSED',
  /**
   * The host matches a `deniedDomains` pattern of the host's sandbox policy (a `WebFetch(domain:…)` deny
   * rule, Claude Code's `sandbox.network`), or that policy cannot be read; `data.pattern` names the pattern.
   */
  DOMAIN_DENIED: 'WEB_DOMAIN_DENIED',
  /** The host name did not resolve, or the resolver returned something that is not an address. */
  DNS_FAILED: 'WEB_DNS_FAILED',
  /** The connection failed or broke (refused, reset, TLS) before the response was complete. */
  CONNECTION_FAILED: 'WEB_CONNECTION_FAILED',
  /** More redirects than `maxRedirects`. */
  TOO_MANY_REDIRECTS: 'WEB_TOO_MANY_REDIRECTS',
  /** A redirect led back to a URL already visited. */
  REDIRECT_LOOP: 'WEB_REDIRECT_LOOP',
  /** A redirect to another host while `followRedirectsAcrossHosts` is off; `data.location` is where it leads. */
  REDIRECT_TO_OTHER_HOST: 'WEB_REDIRECT_TO_OTHER_HOST',
  /** A redirect without a usable `Location`. */
  BAD_REDIRECT: 'WEB_BAD_REDIRECT',
  /** The server answered with a status of 400 or above; `data.status` holds it. */
  HTTP_STATUS: 'WEB_HTTP_STATUS',
  /** The body is binary (an image, a PDF, an archive, or bytes that sniff as binary). */
  BINARY_CONTENT: 'WEB_BINARY_CONTENT',
  /** The body (after decompression) is larger than the byte cap. */
  BODY_TOO_LARGE: 'WEB_BODY_TOO_LARGE',
  /** The body could not be decompressed, or its `Content-Encoding` is not supported. */
  DECODE_FAILED: 'WEB_DECODE_FAILED',
  /** The search provider failed or returned something that is not a list of results. */
  SEARCH_FAILED: 'WEB_SEARCH_FAILED',
  /** The fetch ran past `timeoutMs` and was stopped. */
  TOOL_TIMEOUT: 'TOOL_TIMEOUT',
  /** The call's signal was aborted and the request was stopped. */
  ABORTED: 'ABORTED',
  /** `toolWeb` was called with options it cannot use. */
  INVALID_OPTIONS: 'INVALID_OPTIONS',
} as const;

/** One of tool-web's stable codes. */
export type WebErrorCode = (typeof WebErrorCode)[keyof typeof WebErrorCode];

/** Builds the `ToolError` a body throws, with details in its `data`. */
export function webError(code: WebErrorCode, message: string, data?: Readonly<Record<string, unknown>>): ToolError {
  return new ToolError(code, message, data === undefined ? undefined : { data });
}
