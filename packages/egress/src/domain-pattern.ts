import { EgressErrorCode, egressError } from './errors.js';
import { type CanonicalHost, canonicalHost, parseAuthority } from './host-name.js';

/** A parsed `allowedDomains` / `deniedDomains` entry. */
export interface DomainPattern {
  /** The entry as written. */
  readonly text: string;
  /** The canonical host (for a wildcard, the part after `*.`). */
  readonly host: string;
  readonly kind: CanonicalHost['kind'];
  /** `*.example.com`: any subdomain of `example.com`, never `example.com` itself. */
  readonly wildcard: boolean;
  /** Only this port matches; any port when absent. */
  readonly port?: number;
}

/**
 * Parses a domain pattern as Claude Code's sandbox settings write them:
 * `example.com`, `*.example.com`, either with `:port`, or an IP literal
 * (`10.0.0.5`, `[::1]:8080`). Names compare case-insensitively and without a
 * trailing dot. Throws `EGRESS_INVALID_PATTERN` for a pattern that cannot
 * match a destination: a bare `*`, a `*` anywhere but a leading `*.`, a URL,
 * a path, a port out of range.
 */
export function parseDomainPattern(text: string): DomainPattern {
  const fail = (why: string) => egressError(EgressErrorCode.EGRESS_INVALID_PATTERN, `domain pattern ${JSON.stringify(text)} ${why}`);
  if (typeof text !== 'string' || text.trim() !== text || text.length === 0) throw fail('is empty or has spaces');
  const wildcard = text.startsWith('*.');
  const rest = wildcard ? text.slice(2) : text;
  if (rest.includes('*')) throw fail('may use `*` only as a leading `*.`');
  if (/[/?#@]/.test(rest) || rest.includes('://')) throw fail('must be a host, not a URL');
  const hasPort = /:\d*$/.test(rest) && (!rest.includes('::') || rest.startsWith('['));
  const parsed = hasPort ? parseAuthority(rest) : undefined;
  const host = parsed ?? canonicalHost(rest);
  if (!host) throw fail(hasPort ? 'has an invalid host or a port outside 1-65535' : 'is not a valid host name');
  if (wildcard && host.kind !== 'name') throw fail('puts a wildcard on an IP address');
  return { text, host: host.host, kind: host.kind, wildcard, ...(parsed ? { port: parsed.port } : {}) };
}

/** Whether a canonical destination matches the pattern. */
export function matchesDomainPattern(pattern: DomainPattern, destination: { host: string; port: number }): boolean {
  if (pattern.port !== undefined && pattern.port !== destination.port) return false;
  if (!pattern.wildcard) return destination.host === pattern.host;
  return destination.host.endsWith(`.${pattern.host}`);
}
