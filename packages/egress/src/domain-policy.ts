import { type DomainPattern, matchesDomainPattern, parseDomainPattern } from './domain-pattern.js';
import { EgressErrorCode, egressError } from './errors.js';
import { canonicalHost } from './host-name.js';

/** Lists of domain patterns, as in Claude Code's `sandbox.network` settings. */
export interface DomainPolicyOptions {
  /** Destinations reachable without asking. */
  readonly allowedDomains?: readonly string[];
  /** Destinations never reachable; checked first, so they win over every allow. */
  readonly deniedDomains?: readonly string[];
}

/** What the policy says of a destination, and which pattern said it. */
export type DomainVerdict =
  | { readonly verdict: 'deny'; readonly pattern: string }
  | { readonly verdict: 'allow'; readonly pattern: string }
  | { readonly verdict: 'unlisted' };

/** A parsed, validated domain policy. */
export interface DomainPolicy {
  readonly allowed: readonly DomainPattern[];
  readonly denied: readonly DomainPattern[];
  /**
   * Judges a destination: a denied pattern first, then an allowed one, else
   * `unlisted` (the caller asks, or denies when it runs unattended). The host
   * may be written in any form; it is canonicalised first, and a host that
   * cannot be canonicalised is denied.
   */
  check(destination: { readonly host: string; readonly port: number }): DomainVerdict;
}

/**
 * Builds the one domain policy that governs both the egress proxy and
 * `web_fetch`. Throws `EGRESS_INVALID_PATTERN` naming the first entry that
 * cannot match anything.
 */
export function domainPolicy(options: DomainPolicyOptions = {}): DomainPolicy {
  const parseAll = (field: string, list: readonly string[] | undefined) => {
    if (list !== undefined && !Array.isArray(list)) {
      throw egressError(EgressErrorCode.EGRESS_INVALID_PATTERN, `${field} must be an array of domain patterns`);
    }
    return Object.freeze((list ?? []).map(parseDomainPattern));
  };
  const denied = parseAll('deniedDomains', options.deniedDomains);
  const allowed = parseAll('allowedDomains', options.allowedDomains);
  return Object.freeze({
    allowed,
    denied,
    check(destination: { host: string; port: number }): DomainVerdict {
      const host = canonicalHost(destination.host);
      if (!host) return { verdict: 'deny', pattern: '(invalid host)' };
      const target = { host: host.host, port: destination.port };
      const deny = denied.find((pattern) => matchesDomainPattern(pattern, target));
      if (deny) return { verdict: 'deny', pattern: deny.text };
      const allow = allowed.find((pattern) => matchesDomainPattern(pattern, target));
      if (allow) return { verdict: 'allow', pattern: allow.text };
      return { verdict: 'unlisted' };
    },
  });
}
