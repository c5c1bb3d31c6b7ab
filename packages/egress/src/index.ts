/**
 * The egress proxy for dsh's sandboxed commands: HTTP CONNECT, plain-http
 * forwarding and SOCKS5 on one unix socket, where every new destination of a
 * call is a decision (domain policy, grants, approval) and every connection a
 * `network/connect` record.
 *
 * @packageDocumentation
 */
export { type AddressRange, addressAllowList, restrictedRange } from './address-ranges.js';
export { type DomainPattern, matchesDomainPattern, parseDomainPattern } from './domain-pattern.js';
export { type DomainPolicy, type DomainPolicyOptions, type DomainVerdict, domainPolicy } from './domain-policy.js';
export { type ProxyEnvironmentOptions, proxyEnvironment } from './environment.js';
export { EgressErrorCode } from './errors.js';
export { type CanonicalHost, canonicalHost } from './host-name.js';
export { type EgressProxyOptions, egressProxyOptionsSchema } from './options.js';
export { type EgressCall, type EgressProxy, startEgressProxy } from './proxy.js';
export type {
  EgressConnectionInfo,
  EgressConnectionRecord,
  EgressDecider,
  EgressDecision,
  EgressDestination,
  EgressLimits,
  EgressProtocol,
  EgressResolver,
  EgressStats,
} from './types.js';
export { version } from './version.js';
