import { BlockList, isIP } from 'node:net';
import { embeddedIpv4, type Ipv4Embedding, parseIpv6 } from './ip-address.js';

/** Why an address is refused by default. */
export type AddressCategory =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unique-local'
  | 'cgnat'
  | 'multicast'
  | 'metadata'
  | 'documentation'
  | 'reserved';

/** One range `web_fetch` refuses unless the allow-list admits it. */
export interface BlockedRange {
  /** CIDR notation. */
  readonly range: string;
  readonly category: AddressCategory;
}

/**
 * Every range refused by default, the most specific first (so a metadata
 * address reads as `metadata`, not `link-local`).
 */
export const blockedRanges: readonly BlockedRange[] = Object.freeze([
  // Cloud metadata services: AWS, GCP, Azure, OpenStack (169.254.169.254), AWS over IPv6, Alibaba, Azure's wire server.
  { range: '169.254.169.254/32', category: 'metadata' },
  { range: 'fd00:ec2::254/128', category: 'metadata' },
  { range: '100.100.100.200/32', category: 'metadata' },
  { range: '168.63.129.16/32', category: 'metadata' },
  { range: '0.0.0.0/8', category: 'unspecified' },
  { range: '10.0.0.0/8', category: 'private' },
  { range: '100.64.0.0/10', category: 'cgnat' },
  { range: '127.0.0.0/8', category: 'loopback' },
  { range: '169.254.0.0/16', category: 'link-local' },
  { range: '172.16.0.0/12', category: 'private' },
  { range: '192.0.0.0/24', category: 'reserved' },
  { range: '192.0.2.0/24', category: 'documentation' },
  { range: '192.88.99.0/24', category: 'reserved' },
  { range: '192.168.0.0/16', category: 'private' },
  { range: '198.18.0.0/15', category: 'reserved' },
  { range: '198.51.100.0/24', category: 'documentation' },
  { range: '203.0.113.0/24', category: 'documentation' },
  { range: '224.0.0.0/4', category: 'multicast' },
  { range: '240.0.0.0/4', category: 'reserved' },
  { range: '::/128', category: 'unspecified' },
  { range: '::1/128', category: 'loopback' },
  { range: '::/96', category: 'reserved' },
  { range: '64:ff9b:1::/48', category: 'reserved' },
  { range: '100::/64', category: 'reserved' },
  { range: '2001::/32', category: 'reserved' },
  { range: '2001:db8::/32', category: 'documentation' },
  { range: 'fc00::/7', category: 'unique-local' },
  { range: 'fe80::/10', category: 'link-local' },
  { range: 'fec0::/10', category: 'private' },
  { range: 'ff00::/8', category: 'multicast' },
]);

/** A `BlockList` holding one CIDR range; `undefined` for a malformed one. */
export function cidrList(cidr: string, into: BlockList = new BlockList()): BlockList | undefined {
  const [network = '', prefixText = ''] = cidr.split('/');
  const family = isIP(network);
  const prefix = Number(prefixText);
  if (family === 0 || !/^\d{1,3}$/.test(prefixText) || prefix > (family === 4 ? 32 : 128)) return undefined;
  into.addSubnet(network, prefix, family === 4 ? 'ipv4' : 'ipv6');
  return into;
}

const compiled = blockedRanges.map((r) => ({ ...r, list: cidrList(r.range) as BlockList, family: r.range.includes(':') ? 6 : 4 }));

/** Why an address is refused: its category and range, and the IPv4 address it carries when it is an IPv6 form of one. */
export interface AddressVerdict {
  readonly category: AddressCategory;
  readonly range: string;
  /** The IPv4 address inside an IPv6 one, and how it is embedded. */
  readonly embedded?: { readonly address: string; readonly embedding: Ipv4Embedding };
}

function firstRange(address: string, family: 4 | 6) {
  const type = family === 4 ? 'ipv4' : 'ipv6';
  // BlockList matches IPv4 rules against IPv4-mapped IPv6 too; keep families apart, embedded forms are unwrapped below.
  return compiled.find((r) => r.family === family && r.list.check(address, type));
}

/**
 * The verdict for an address (`127.0.0.1`, `::ffff:7f00:1`), or `undefined`
 * when it is a public unicast address. An IPv6 address that carries an IPv4
 * one is judged by that IPv4 address too. Anything that is not an address
 * is `reserved`.
 */
export function classifyAddress(address: string): AddressVerdict | undefined {
  const family = isIP(address);
  if (family === 4) {
    const hit = firstRange(address, 4);
    return hit === undefined ? undefined : { category: hit.category, range: hit.range };
  }
  const bytes = family === 6 ? parseIpv6(address) : undefined;
  if (bytes === undefined) return { category: 'reserved', range: 'not an IP address' };
  const embedded = embeddedIpv4(bytes);
  if (embedded !== undefined) {
    const inner = firstRange(embedded.address, 4);
    if (inner !== undefined) return { category: inner.category, range: inner.range, embedded };
  }
  const hit = firstRange(address, 6);
  return hit === undefined ? undefined : { category: hit.category, range: hit.range };
}
