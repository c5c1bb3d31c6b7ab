import { describe, expect, it } from 'vitest';
import { addressAllowList, restrictedRange } from './address-ranges.js';
import { canonicalHost, parseAuthority } from './host-name.js';

describe('canonical hosts', () => {
  it.each([
    ['2130706433', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['[::FFFF:127.0.0.1]', '::ffff:7f00:1'],
    ['Bücher.Example.', 'xn--bcher-kva.example'],
  ])('writes %s as %s', (text, host) => {
    expect(canonicalHost(text)?.host).toBe(host);
  });

  it.each(['', 'a b', '1.2.3.4.5', '[fe80::1%eth0]', 'a/b', '*.example.com', 'user@host'])('refuses %j', (text) => {
    expect(canonicalHost(text)).toBeUndefined();
  });

  it('parses authorities with and without ports', () => {
    expect(parseAuthority('[::1]:443')).toEqual({ host: '::1', kind: 'ipv6', port: 443 });
    expect(parseAuthority('example.com', 80)).toEqual({ host: 'example.com', kind: 'name', port: 80 });
    expect(parseAuthority('example.com')).toBeUndefined();
    expect(parseAuthority('example.com:0')).toBeUndefined();
  });
});

describe('restricted ranges', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['169.254.169.254', 'metadata'],
    ['169.254.1.1', 'link-local'],
    ['10.0.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['100.64.0.1', 'private'],
    ['0.0.0.0', 'unspecified'],
    ['::1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['2002:7f00:1::', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fd00:ec2::254', 'metadata'],
    ['ff02::1', 'multicast'],
  ])('places %s in %s', (address, range) => {
    expect(restrictedRange(address)).toBe(range);
  });

  it('leaves public addresses unrestricted', () => {
    expect(restrictedRange('93.184.216.34')).toBeUndefined();
    expect(restrictedRange('2606:2800:220:1::')).toBeUndefined();
  });

  it('lets an allow list reach a block, also in its IPv4-mapped form', () => {
    const mayReach = addressAllowList(['10.0.0.0/8']);
    expect(mayReach('10.1.2.3')).toBe(true);
    expect(mayReach('::ffff:a01:203')).toBe(true);
    expect(mayReach('11.0.0.1')).toBe(false);
    expect(() => addressAllowList(['10.0.0.0/33'])).toThrowError(expect.objectContaining({ code: 'EGRESS_INVALID_OPTIONS' }));
  });
});
