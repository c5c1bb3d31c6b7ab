import { isIP } from 'node:net';
import { classifyAddress } from './address-ranges.js';
import type { AllowList } from './allow-list.js';
import type { DomainRules } from './domain-rules.js';
import { WebErrorCode, webError } from './errors.js';
import { parseIpv4Spelling } from './ip-address.js';
import type { Resolver } from './resolver.js';

/** A URL the policy admitted, pinned to the one address the connection must use. */
export interface PinnedTarget {
  readonly url: URL;
  /** The host name without brackets. */
  readonly host: string;
  /** The checked address: the request connects here and nowhere else. */
  readonly address: string;
  readonly family: 4 | 6;
}

/** What a {@link TargetPolicy} is built from. */
export interface TargetPolicyOptions {
  readonly allow: AllowList;
  readonly ports: readonly number[];
  readonly resolver: Resolver;
  /** The host's domain lists, checked on every hop before the name is resolved. */
  readonly domains?: DomainRules;
}

const shown = (s: string) => (s.length > 200 ? `${s.slice(0, 200)}…` : s);

/**
 * The SSRF policy of `web_fetch`, applied to the first URL and to every
 * redirect: `parse` checks what the URL says (scheme, credentials, port, how
 * an IP host is spelled); `admit` resolves the host once, checks every
 * address, and returns the one to connect to.
 */
export class TargetPolicy {
  readonly #allow: AllowList;
  readonly #ports: ReadonlySet<number>;
  readonly #resolver: Resolver;
  readonly #domains: DomainRules | undefined;

  constructor(options: TargetPolicyOptions) {
    this.#allow = options.allow;
    this.#ports = new Set(options.ports);
    this.#resolver = options.resolver;
    this.#domains = options.domains;
  }

  /** Parses `raw` (against `base` for a redirect) and applies the checks that need no lookup. Throws a coded `ToolError`. */
  parse(raw: string, base?: URL): URL {
    let url: URL;
    try {
      url = base === undefined ? new URL(raw) : new URL(raw, base);
    } catch {
      throw webError(WebErrorCode.INVALID_URL, `"${shown(raw)}" is not a valid URL`, { url: shown(raw) });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw webError(WebErrorCode.SCHEME_REFUSED, `refused ${url.protocol} URL: only http: and https: are fetched`, {
        scheme: url.protocol,
      });
    if (url.username !== '' || url.password !== '')
      throw webError(WebErrorCode.CREDENTIALS_REFUSED, 'refused a URL with a user name or password in it', { host: url.hostname });
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    if (!this.#ports.has(port))
      throw webError(WebErrorCode.PORT_REFUSED, `refused port ${port}: allowed ports are ${[...this.#ports].join(', ')}`, { port });
    refuseOddSpelling(writtenHost(raw), url.hostname);
    url.hash = '';
    return url;
  }

  /**
   * Resolves the URL's host once (an IP host is not resolved) and checks
   * every address it has: one refused address refuses the target. Returns
   * the first address, which the request is pinned to. A host the domain
   * lists deny is refused first, without a lookup.
   */
  async admit(url: URL, signal: AbortSignal): Promise<PinnedTarget> {
    this.#domains?.check(url);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const literal = isIP(host);
    const byName = literal === 0 && this.#allow.admitsName(host);
    const found = literal === 0 ? await this.#resolve(host, signal) : [{ address: host }];
    const pinned: { address: string; family: 4 | 6 }[] = [];
    for (const { address } of found) {
      const family = typeof address === 'string' ? isIP(address) : 0;
      if (family === 0)
        throw webError(WebErrorCode.DNS_FAILED, `the resolver gave "${shown(String(address))}" for ${host}, which is not an IP address`, {
          host,
        });
      const fam = family as 4 | 6;
      pinned.push({ address, family: fam });
      if (byName || this.#allow.admitsAddress(address, fam)) continue;
      const verdict = classifyAddress(address);
      if (verdict === undefined) continue;
      const via =
        verdict.embedded === undefined ? '' : ` (the IPv4 address ${verdict.embedded.address} in ${verdict.embedded.embedding} form)`;
      const resolved = literal === 0 ? `${host} resolves to ${address}` : `${address} is`;
      throw webError(
        WebErrorCode.ADDRESS_REFUSED,
        `refused: ${resolved}${via}, a ${verdict.category} address (${verdict.range}); web_fetch only reaches public addresses`,
        { host, address, category: verdict.category, range: verdict.range },
      );
    }
    const first = pinned[0] as { address: string; family: 4 | 6 };
    return { url, host, address: first.address, family: first.family };
  }

  async #resolve(host: string, signal: AbortSignal): Promise<readonly { address: string }[]> {
    let found: readonly { address: string }[];
    try {
      found = await this.#resolver(host, { signal });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw webError(WebErrorCode.DNS_FAILED, `${host} did not resolve: ${(error as Error)?.message ?? String(error)}`, { host });
    }
    if (!Array.isArray(found) || found.length === 0) throw webError(WebErrorCode.DNS_FAILED, `${host} has no address`, { host });
    return found;
  }
}

/**
 * The host as written in `raw` (before the URL parser normalised it), or
 * `undefined` when `raw` is a relative reference that keeps its base's host.
 */
function writtenHost(raw: string): string | undefined {
  const match = /^\s*[a-z][a-z0-9+.-]*:[\\/]*([^\\/?#]*)/i.exec(raw) ?? /^\s*[\\/]{2,}([^\\/?#]*)/.exec(raw);
  if (match === null) return undefined;
  let authority = match[1] as string;
  authority = authority.slice(authority.lastIndexOf('@') + 1);
  if (authority.startsWith('[')) return authority.slice(0, authority.indexOf(']') + 1);
  const colon = authority.lastIndexOf(':');
  return colon === -1 ? authority : authority.slice(0, colon);
}

/**
 * Refuses an IPv4 host written any way but plain dotted decimal: `2130706433`,
 * `0x7f.1`, `0177.0.0.1`, `127.1`, percent-escaped or full-width digits. The
 * address is checked anyway; the spelling itself is refused because nobody
 * writes it but to slip past a filter.
 */
function refuseOddSpelling(written: string | undefined, hostname: string): void {
  if (written === undefined) return;
  let host = written.toLowerCase();
  try {
    host = decodeURIComponent(host);
  } catch {
    // A malformed escape: the URL parser accepted it as is, compare it as is.
  }
  const parsed = parseIpv4Spelling(host);
  const spelling = parsed !== undefined && parsed.spelling !== 'dotted' ? parsed.spelling : undefined;
  const odd = spelling ?? (isIP(hostname) === 4 && written !== hostname ? 'escaped' : undefined);
  if (odd === undefined) return;
  throw webError(
    WebErrorCode.IP_SPELLING_REFUSED,
    `refused host "${shown(written)}": an IPv4 address in ${odd} spelling (it means ${hostname}); write it as dotted decimal`,
    { host: shown(written), address: hostname, spelling: odd },
  );
}
