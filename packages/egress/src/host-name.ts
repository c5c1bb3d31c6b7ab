import { isIPv4, isIPv6 } from 'node:net';

/** A destination host in canonical form: a lower-case ASCII name, or an IP address as the URL standard prints it. */
export interface CanonicalHost {
  /** The host: `example.com` (no trailing dot), `127.0.0.1`, or `::ffff:7f00:1` (IPv6 without brackets). */
  readonly host: string;
  readonly kind: 'name' | 'ipv4' | 'ipv6';
}

const label = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/**
 * The canonical form of a host as a client wrote it, or `undefined` when it
 * is no usable host. IPv4 in decimal, octal, hex or short form
 * (`2130706433`, `0177.0.0.1`, `127.1`) becomes dotted decimal; IPv6 is
 * compressed and lower-case; names become punycode, lower-case, without a
 * trailing dot. Judging the canonical form means that one address has one
 * spelling, so no policy can be passed by writing it another way.
 */
export function canonicalHost(text: string): CanonicalHost | undefined {
  if (text.length === 0 || text.length > 300 || /[\s/\\?#@%]/.test(text)) return undefined;
  const bracketed = text.startsWith('[') && text.endsWith(']');
  const bare = bracketed ? text.slice(1, -1) : text;
  if (isIPv6(bare)) return ipv6Of(bare);
  if (bracketed || text.includes(':')) return undefined;
  let hostname: string;
  try {
    // The URL standard's host parser: IPv4 in every legacy spelling, IDNA to punycode.
    hostname = new URL(`http://${text}/`).hostname;
  } catch {
    return undefined;
  }
  if (hostname.startsWith('[')) return ipv6Of(hostname.slice(1, -1));
  if (isIPv4(hostname)) return { host: hostname, kind: 'ipv4' };
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  if (name.length === 0 || name.length > 253) return undefined;
  if (!name.split('.').every((part) => label.test(part))) return undefined;
  return { host: name, kind: 'name' };
}

function ipv6Of(address: string): CanonicalHost | undefined {
  try {
    const hostname = new URL(`http://[${address}]/`).hostname;
    return { host: hostname.slice(1, -1), kind: 'ipv6' };
  } catch {
    return undefined;
  }
}

/** A destination: canonical host and port. */
export interface HostAndPort extends CanonicalHost {
  readonly port: number;
}

/**
 * Parses `host:port` or `[v6]:port` (an HTTP authority); `defaultPort` when
 * the port is absent and one is allowed. `undefined` when unusable.
 */
export function parseAuthority(text: string, defaultPort?: number): HostAndPort | undefined {
  const match = /^(\[[^\]]*\]|[^:[\]]*)(?::(\d{1,5}))?$/.exec(text);
  if (!match) return undefined;
  const [, hostText = '', portText] = match;
  const port = portText === undefined ? defaultPort : Number(portText);
  if (port === undefined || !Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  const host = canonicalHost(hostText);
  return host && { ...host, port };
}

/** The host as it goes into an authority: IPv6 in brackets. */
export function authorityOf(destination: HostAndPort): string {
  const host = destination.kind === 'ipv6' ? `[${destination.host}]` : destination.host;
  return `${host}:${destination.port}`;
}
