import { BlockList, isIP } from 'node:net';
import { cidrList } from './address-ranges.js';

/**
 * The targets an integrator admits past the address checks: host names
 * (`docs.internal`), suffix wildcards (`*.corp.example`), addresses
 * (`127.0.0.1`, `::1`) and CIDR ranges (`10.1.0.0/16`). Scheme, credential,
 * port and IP-spelling checks still apply to them.
 */
export class AllowList {
  readonly #names = new Set<string>();
  readonly #suffixes: string[] = [];
  readonly #ranges = new BlockList();
  #hasRanges = false;

  /** Parses the entries; throws an `Error` naming the first bad one by index. */
  constructor(entries: readonly string[]) {
    entries.forEach((raw, i) => {
      const entry = raw.trim().toLowerCase();
      if (entry.includes('/')) {
        if (cidrList(entry, this.#ranges) === undefined) throw new Error(`${i}: "${raw}" is not a CIDR range`);
        this.#hasRanges = true;
      } else if (isIP(entry.replace(/^\[|\]$/g, '')) !== 0) {
        const address = entry.replace(/^\[|\]$/g, '');
        this.#ranges.addAddress(address, isIP(address) === 4 ? 'ipv4' : 'ipv6');
        this.#hasRanges = true;
      } else if (entry.startsWith('*.')) {
        this.#suffixes.push(`.${hostName(entry.slice(2), raw, i)}`);
      } else {
        this.#names.add(hostName(entry, raw, i));
      }
    });
  }

  /** Whether the host name (lower case, no trailing dot) is admitted by name. */
  admitsName(host: string): boolean {
    const name = host.replace(/\.$/, '');
    return this.#names.has(name) || this.#suffixes.some((s) => name.endsWith(s));
  }

  /** Whether the address is inside an admitted address or range. */
  admitsAddress(address: string, family: 4 | 6): boolean {
    if (!this.#hasRanges) return false;
    // BlockList also matches an IPv4 entry against the IPv4-mapped IPv6 form of the same address: the same host.
    return this.#ranges.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }
}

function hostName(entry: string, raw: string, i: number): string {
  const bad = () => new Error(`${i}: "${raw}" is not a host name, address or CIDR range`);
  if (!/^[^\s/:@?#[\]\\]+$/.test(entry)) throw bad();
  try {
    // The URL parser's own mapping (IDNA to punycode, lower case), so entries compare with what URLs carry.
    return new URL(`http://${entry}/`).hostname.replace(/\.$/, '');
  } catch {
    throw bad();
  }
}
