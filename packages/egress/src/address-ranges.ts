import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { EgressErrorCode, egressError } from './errors.js';

/** Why an address is not reachable by default. */
export type AddressRange = 'unspecified' | 'loopback' | 'link-local' | 'metadata' | 'private' | 'multicast' | 'reserved';

type Entry = readonly [network: string, prefix: number, range: AddressRange];

// Order matters where ranges nest: the first match names the range.
const ipv4Ranges: readonly Entry[] = [
  ['169.254.169.254', 32, 'metadata'], // AWS, GCP, Azure, OpenStack
  ['100.100.100.200', 32, 'metadata'], // Alibaba Cloud
  ['0.0.0.0', 8, 'unspecified'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['10.0.0.0', 8, 'private'],
  ['172.16.0.0', 12, 'private'],
  ['192.168.0.0', 16, 'private'],
  ['100.64.0.0', 10, 'private'], // carrier-grade NAT
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'], // includes 255.255.255.255
];

const ipv6Ranges: readonly Entry[] = [
  ['fd00:ec2::254', 128, 'metadata'], // AWS over IPv6
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::', 96, 'reserved'], // IPv4-compatible, deprecated
  ['64:ff9b:1::', 48, 'private'], // local-use NAT64
  ['100::', 64, 'reserved'],
  ['2001:db8::', 32, 'reserved'],
  ['fc00::', 7, 'private'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'private'], // site-local, deprecated
  ['ff00::', 8, 'multicast'],
];

const lists = new Map<AddressRange, BlockList>();
function listOf(range: AddressRange): BlockList {
  let list = lists.get(range);
  if (!list) {
    list = new BlockList();
    lists.set(range, list);
  }
  return list;
}
for (const [network, prefix, range] of ipv4Ranges) listOf(range).addSubnet(network, prefix, 'ipv4');
for (const [network, prefix, range] of ipv6Ranges) listOf(range).addSubnet(network, prefix, 'ipv6');
const ipv4Order = ipv4Ranges.map(([, , range]) => range);
const ipv6Order = ipv6Ranges.map(([, , range]) => range);

/**
 * The range that makes `address` unreachable by default, or `undefined` for a
 * public address. IPv6 forms that carry an IPv4 address (mapped
 * `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are judged by
 * the IPv4 address they carry.
 */
export function restrictedRange(address: string): AddressRange | undefined {
  if (isIPv4(address)) return firstRange(address, 'ipv4', ipv4Order);
  if (!isIPv6(address)) return 'reserved';
  const embedded = embeddedIPv4(address);
  if (embedded !== undefined) return restrictedRange(embedded);
  return firstRange(address, 'ipv6', ipv6Order);
}

function firstRange(address: string, family: 'ipv4' | 'ipv6', order: readonly AddressRange[]): AddressRange | undefined {
  for (const range of order) if (lists.get(range)?.check(address, family)) return range;
  return undefined;
}

/** The IPv4 address an IPv6 address carries (mapped, NAT64 well-known prefix, 6to4), if any. */
export function embeddedIPv4(address: string): string | undefined {
  const groups = ipv6Groups(address);
  if (!groups) return undefined;
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = groups;
  const mapped = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff;
  const nat64 = g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0;
  if (mapped || nat64) return dotted(g6, g7);
  if (g0 === 0x2002) return dotted(g1 ?? 0, g2 ?? 0);
  return undefined;
}

function dotted(high: number, low: number): string {
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4?.[1]) {
    const [a = 0, b = 0, c = 0, d = 0] = v4[1].split('.').map(Number);
    text = `${text.slice(0, -v4[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)));
  const first = parse(head);
  if (tail === undefined) return first.length === 8 ? first : undefined;
  const last = parse(tail);
  return [...first, ...new Array<number>(8 - first.length - last.length).fill(0), ...last];
}

/**
 * A set of addresses that may be reached although a range restricts them
 * (`127.0.0.1`, `10.0.0.0/8`, `::1/128`). Throws `EGRESS_INVALID_OPTIONS`
 * for an entry that is no address or CIDR block.
 */
export function addressAllowList(entries: readonly string[]): (address: string) => boolean {
  const list = new BlockList();
  for (const entry of entries) {
    const [network = '', prefixText, extra] = entry.split('/');
    const family = isIPv4(network) ? 'ipv4' : isIPv6(network) ? 'ipv6' : undefined;
    const max = family === 'ipv4' ? 32 : 128;
    const prefix = prefixText === undefined ? max : Number(prefixText);
    if (!family || extra !== undefined || !/^\d*$/.test(prefixText ?? '') || !(prefix >= 0 && prefix <= max)) {
      throw egressError(
        EgressErrorCode.EGRESS_INVALID_OPTIONS,
        `allowAddresses: ${JSON.stringify(entry)} is not an IP address or CIDR block`,
      );
    }
    list.addSubnet(network, prefix, family);
  }
  return (address) => {
    const family = isIPv4(address) ? 'ipv4' : 'ipv6';
    if (list.check(address, family)) return true;
    const embedded = family === 'ipv6' ? embeddedIPv4(address) : undefined;
    return embedded !== undefined && list.check(embedded, 'ipv4');
  };
}
