/**
 * IP address parsing of our own, so that the SSRF checks do not depend on
 * how one URL parser happens to normalise hosts: every IPv4 spelling the
 * WHATWG URL standard and `inet_aton` accept, and IPv6 with the IPv4 forms
 * embedded in it.
 */

/** How an IPv4 host was written; anything but `dotted` is an alternative spelling. */
export type Ipv4Spelling = 'dotted' | 'decimal' | 'octal' | 'hex' | 'short';

/** An IPv4 address read from a host string, with how it was spelled. */
export interface ParsedIpv4 {
  /** The canonical dotted form (`127.0.0.1`). */
  readonly address: string;
  readonly spelling: Ipv4Spelling;
}

function parsePart(part: string): { value: number; radix: 8 | 10 | 16 } | undefined {
  if (/^0x[0-9a-f]*$/i.test(part)) return { value: part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16), radix: 16 };
  if (/^0[0-7]+$/.test(part)) return { value: Number.parseInt(part.slice(1), 8), radix: 8 };
  if (/^(0|[1-9][0-9]*)$/.test(part)) return { value: Number(part), radix: 10 };
  return undefined;
}

/**
 * Reads a host as an IPv4 address in any spelling that resolvers and URL
 * parsers accept: one to four parts, each decimal, octal (leading `0`) or hex
 * (`0x`), the last part filling the remaining bytes (`127.1`, `2130706433`,
 * `0x7f.0.0.1`, `0177.0.0.1`). A trailing dot is allowed. `undefined` when
 * the host is not an IPv4 address.
 */
export function parseIpv4Spelling(host: string): ParsedIpv4 | undefined {
  const parts = host.split('.');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length === 0 || parts.length > 4) return undefined;
  const parsed = parts.map(parsePart);
  if (parsed.some((p) => p === undefined)) return undefined;
  const values = parsed as { value: number; radix: 8 | 10 | 16 }[];
  const last = values[values.length - 1] as { value: number };
  const leading = values.slice(0, -1);
  if (leading.some((p) => p.value > 255) || last.value >= 256 ** (5 - values.length)) return undefined;
  let n = last.value;
  leading.forEach((p, i) => {
    n += p.value * 256 ** (3 - i);
  });
  const address = formatIpv4(n);
  let spelling: Ipv4Spelling = 'dotted';
  if (values.some((p) => p.radix === 16)) spelling = 'hex';
  else if (values.some((p) => p.radix === 8)) spelling = 'octal';
  else if (values.length === 1) spelling = 'decimal';
  else if (values.length < 4) spelling = 'short';
  if (spelling === 'dotted' && host !== address) spelling = 'short'; // a trailing dot
  return { address, spelling };
}

function formatIpv4(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

/**
 * Reads an IPv6 address (no brackets, no zone) into its 16 bytes, with `::`
 * and a trailing dotted IPv4 part. `undefined` when it is not one.
 */
export function parseIpv6(text: string): Uint8Array | undefined {
  let head = text;
  const words: number[] = [];
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  const tail: number[] = [];
  if (dotted) {
    const v4 = parseIpv4Spelling(dotted[2] as string);
    if (v4 === undefined || v4.spelling !== 'dotted') return undefined;
    const b = v4.address.split('.').map(Number) as [number, number, number, number];
    tail.push(b[0] * 256 + b[1], b[2] * 256 + b[3]);
    head = (dotted[1] as string).endsWith('::') ? (dotted[1] as string) : (dotted[1] as string).slice(0, -1);
  }
  const halves = head.split('::');
  if (halves.length > 2) return undefined;
  const read = (s: string): number[] | undefined => {
    if (s === '') return [];
    const out: number[] = [];
    for (const w of s.split(':')) {
      if (!/^[0-9a-f]{1,4}$/i.test(w)) return undefined;
      out.push(Number.parseInt(w, 16));
    }
    return out;
  };
  const left = read(halves[0] as string);
  const right = halves.length === 2 ? read(halves[1] as string) : [];
  if (left === undefined || right === undefined) return undefined;
  const given = left.length + right.length + tail.length;
  if (halves.length === 2 ? given > 7 : given !== 8) return undefined;
  words.push(...left, ...new Array<number>(8 - given).fill(0), ...right, ...tail);
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[i * 2] = w >> 8;
    bytes[i * 2 + 1] = w & 0xff;
  });
  return bytes;
}

/** How an IPv4 address is carried inside an IPv6 one. */
export type Ipv4Embedding = 'mapped' | 'compatible' | 'translated' | 'nat64' | '6to4';

const zeros = (b: Uint8Array, from: number, to: number) => b.subarray(from, to).every((x) => x === 0);
const v4At = (b: Uint8Array, at: number) => Array.from(b.subarray(at, at + 4)).join('.');

/**
 * The IPv4 address an IPv6 address stands for, when it is one of the forms
 * that reach an IPv4 host: IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible
 * (`::a.b.c.d`), IPv4-translated (`::ffff:0:a.b.c.d`), NAT64
 * (`64:ff9b::a.b.c.d`) and 6to4 (`2002:AABB:CCDD::`).
 */
export function embeddedIpv4(bytes: Uint8Array): { readonly address: string; readonly embedding: Ipv4Embedding } | undefined {
  if (zeros(bytes, 0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return { address: v4At(bytes, 12), embedding: 'mapped' };
  if (zeros(bytes, 0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zeros(bytes, 10, 12))
    return { address: v4At(bytes, 12), embedding: 'translated' };
  // `::` and `::1` are IPv6's own unspecified and loopback addresses, not IPv4-compatible ones.
  if (zeros(bytes, 0, 12) && !zeros(bytes, 12, 15)) return { address: v4At(bytes, 12), embedding: 'compatible' };
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(bytes, 4, 12))
    return { address: v4At(bytes, 12), embedding: 'nat64' };
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return { address: v4At(bytes, 2), embedding: '6to4' };
  return undefined;
}

/** The canonical text of 16 IPv6 bytes (full form, lower case), for `BlockList` checks and messages. */
export function formatIpv6(bytes: Uint8Array): string {
  const words: string[] = [];
  for (let i = 0; i < 16; i += 2) words.push((((bytes[i] as number) << 8) | (bytes[i + 1] as number)).toString(16));
  return words.join(':');
}
