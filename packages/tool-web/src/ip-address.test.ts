import { describe, expect, it } from 'vitest';
import { classifyAddress } from './address-ranges.js';
import { embeddedIpv4, parseIpv4Spelling, parseIpv6 } from './ip-address.js';

describe('parseIpv4Spelling', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1', 'dotted'],
    ['2130706433', '127.0.0.1', 'decimal'],
    ['0x7f000001', '127.0.0.1', 'hex'],
    ['0x7f.0.0.1', '127.0.0.1', 'hex'],
    ['0177.0.0.1', '127.0.0.1', 'octal'],
    ['017700000001', '127.0.0.1', 'octal'],
    ['127.1', '127.0.0.1', 'short'],
    ['127.0.1', '127.0.0.1', 'short'],
    ['169.254.43518', '169.254.169.254', 'short'],
    ['0xa9.0xfe.0xa9.0xfe', '169.254.169.254', 'hex'],
    ['127.0.0.1.', '127.0.0.1', 'short'],
    ['0', '0.0.0.0', 'decimal'],
  ])('reads %s as %s (%s)', (host, address, spelling) => {
    expect(parseIpv4Spelling(host)).toEqual({ address, spelling });
  });

  it.each(['example.com', '1.2.3.4.5', '256.0.0.1', '4294967296', '08.0.0.1', 'x1.2.3.4', ''])('says %j is not an address', (host) => {
    expect(parseIpv4Spelling(host)).toBeUndefined();
  });
});

describe('parseIpv6 and embeddedIpv4', () => {
  it('reads compressed and dotted-tail forms', () => {
    expect(Array.from(parseIpv6('::1') ?? [])).toEqual([...new Array(15).fill(0), 1]);
    expect(embeddedIpv4(parseIpv6('::ffff:127.0.0.1') as Uint8Array)).toEqual({ address: '127.0.0.1', embedding: 'mapped' });
    expect(embeddedIpv4(parseIpv6('::ffff:7f00:1') as Uint8Array)).toEqual({ address: '127.0.0.1', embedding: 'mapped' });
    expect(embeddedIpv4(parseIpv6('64:ff9b::a9fe:a9fe') as Uint8Array)).toEqual({ address: '169.254.169.254', embedding: 'nat64' });
    expect(embeddedIpv4(parseIpv6('2002:0a00:0001::1') as Uint8Array)).toEqual({ address: '10.0.0.1', embedding: '6to4' });
    expect(embeddedIpv4(parseIpv6('::ffff:0:c0a8:1') as Uint8Array)).toEqual({ address: '192.168.0.1', embedding: 'translated' });
    expect(embeddedIpv4(parseIpv6('2606:4700::1') as Uint8Array)).toBeUndefined();
  });

  it.each(['1:2:3:4:5:6:7:8:9', '1::2::3', 'g::1', '12345::', '::ffff:1.2.3', ':'])('refuses %j', (text) => {
    expect(parseIpv6(text)).toBeUndefined();
  });
});

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.1.2', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['255.255.255.255', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['2002:7f00:1::', 'loopback'],
    ['2001:db8::1', 'documentation'],
  ])('refuses %s as %s', (address, category) => {
    expect(classifyAddress(address)?.category).toBe(category);
  });

  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'admits the public %s',
    (address) => {
      expect(classifyAddress(address)).toBeUndefined();
    },
  );

  it('says through which IPv4 address an IPv6 form was refused', () => {
    expect(classifyAddress('::ffff:169.254.169.254')).toEqual({
      category: 'metadata',
      range: '169.254.169.254/32',
      embedded: { address: '169.254.169.254', embedding: 'mapped' },
    });
  });
});
