import { describe, expect, it } from 'vitest';
import { AllowList } from './allow-list.js';
import { WebErrorCode } from './errors.js';
import { fakeResolver } from './fixtures/server.js';
import { systemResolver } from './resolver.js';
import { TargetPolicy } from './target-policy.js';

const signal = new AbortController().signal;

function policy(allow: string[] = [], table: Record<string, string | string[]> = {}, ports = [80, 443]) {
  const resolver = fakeResolver(table);
  return { resolver, policy: new TargetPolicy({ allow: new AllowList(allow), ports, resolver }) };
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
}

async function admitCode(p: TargetPolicy, url: string): Promise<string | undefined> {
  try {
    await p.admit(p.parse(url), signal);
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
}

describe('what a URL says', () => {
  const { policy: p } = policy();

  it.each([
    ['file:///etc/passwd', WebErrorCode.SCHEME_REFUSED],
    ['ftp://example.com/', WebErrorCode.SCHEME_REFUSED],
    ['gopher://example.com/', WebErrorCode.SCHEME_REFUSED],
    ['data:text/plain,hi', WebErrorCode.SCHEME_REFUSED],
    ['javascript:alert(1)', WebErrorCode.SCHEME_REFUSED],
    ['http://user:pw@example.com/', WebErrorCode.CREDENTIALS_REFUSED],
    ['http://user@example.com/', WebErrorCode.CREDENTIALS_REFUSED],
    ['http://example.com:8080/', WebErrorCode.PORT_REFUSED],
    ['https://example.com:22/', WebErrorCode.PORT_REFUSED],
    ['not a url', WebErrorCode.INVALID_URL],
    ['http://2130706433/', WebErrorCode.IP_SPELLING_REFUSED],
    ['http://0x7f.0.0.1/', WebErrorCode.IP_SPELLING_REFUSED],
    ['http://0177.0.0.1/', WebErrorCode.IP_SPELLING_REFUSED],
    ['http://127.1/', WebErrorCode.IP_SPELLING_REFUSED],
    ['http://0xa9fea9fe/', WebErrorCode.IP_SPELLING_REFUSED],
    ['http://%31%32%37.0.0.1/', WebErrorCode.IP_SPELLING_REFUSED],
    ['http://１２７.０.０.１/', WebErrorCode.IP_SPELLING_REFUSED],
    ['http:\\\\2130706433', WebErrorCode.IP_SPELLING_REFUSED],
    ['HTTP://user@0x7f.1/', WebErrorCode.CREDENTIALS_REFUSED],
  ])('refuses %s with %s', (url, code) => {
    expect(codeOf(() => p.parse(url))).toBe(code);
  });

  it('accepts ordinary URLs and drops the fragment', () => {
    expect(p.parse('https://Example.COM/a?b=1#frag').href).toBe('https://example.com/a?b=1');
    expect(p.parse('http://93.184.215.14/').hostname).toBe('93.184.215.14');
  });

  it('checks the spelling of a redirect target, and lets a relative one keep its base host', () => {
    const base = p.parse('http://example.com/a/b');
    expect(p.parse('../c', base).href).toBe('http://example.com/c');
    expect(codeOf(() => p.parse('//2130706433/x', base))).toBe(WebErrorCode.IP_SPELLING_REFUSED);
    expect(codeOf(() => p.parse('ftp://example.com/', base))).toBe(WebErrorCode.SCHEME_REFUSED);
  });
});

describe('where a URL leads', () => {
  it.each([
    ['http://127.0.0.1/', 'loopback'],
    ['http://[::1]/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://[::ffff:7f00:1]/', 'loopback'],
    ['http://169.254.169.254/latest/meta-data/', 'metadata'],
    ['http://[fd00:ec2::254]/', 'metadata'],
    ['http://[::ffff:169.254.169.254]/', 'metadata'],
    ['http://10.0.0.1/', 'private'],
    ['http://192.168.1.1/', 'private'],
    ['http://100.64.1.1/', 'cgnat'],
    ['http://[fe80::1]/', 'link-local'],
    ['http://[fc00::1]/', 'unique-local'],
    ['http://224.0.0.251/', 'multicast'],
    ['http://0.0.0.0/', 'unspecified'],
  ])('refuses %s as %s without a lookup', async (url, category) => {
    const { policy: p, resolver } = policy();
    const error = await p.admit(p.parse(url), signal).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: WebErrorCode.ADDRESS_REFUSED, data: { category } });
    expect(resolver.calls).toEqual([]);
  });

  it('refuses a name that resolves to a private address, and one with any private address among public ones', async () => {
    const { policy: p } = policy([], {
      'intranet.test': '10.0.0.7',
      'mixed.test': ['93.184.215.14', '127.0.0.1'],
      'meta.test': '::ffff:a9fe:a9fe',
    });
    expect(await admitCode(p, 'http://intranet.test/')).toBe(WebErrorCode.ADDRESS_REFUSED);
    expect(await admitCode(p, 'http://mixed.test/')).toBe(WebErrorCode.ADDRESS_REFUSED);
    expect(await admitCode(p, 'http://meta.test/')).toBe(WebErrorCode.ADDRESS_REFUSED);
  });

  it('pins a public name to the first address it resolved to, looking it up once', async () => {
    const { policy: p, resolver } = policy([], { 'public.test': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] });
    const target = await p.admit(p.parse('https://public.test/x'), signal);
    expect(target).toMatchObject({ host: 'public.test', address: '93.184.215.14', family: 4 });
    expect(resolver.calls).toEqual(['public.test']);
  });

  it('fails with WEB_DNS_FAILED on no answer, an error, or an answer that is not an address', async () => {
    const { policy: p } = policy([], { 'empty.test': [], 'weird.test': '0x7f.1' });
    expect(await admitCode(p, 'http://nowhere.test/')).toBe(WebErrorCode.DNS_FAILED);
    expect(await admitCode(p, 'http://empty.test/')).toBe(WebErrorCode.DNS_FAILED);
    expect(await admitCode(p, 'http://weird.test/')).toBe(WebErrorCode.DNS_FAILED);
  });

  it('admits allow-listed names, wildcards, addresses and ranges, and nothing next to them', async () => {
    const { policy: p } = policy(['docs.internal', '*.corp.test', '127.0.0.1', '10.1.0.0/16', '::1'], {
      'docs.internal': '10.9.9.9',
      'a.b.corp.test': '192.168.0.5',
      'corp.test': '192.168.0.5',
      'other.internal': '10.9.9.9',
    });
    expect(await admitCode(p, 'http://docs.internal/')).toBeUndefined();
    expect(await admitCode(p, 'http://a.b.corp.test/')).toBeUndefined();
    expect(await admitCode(p, 'http://127.0.0.1/')).toBeUndefined();
    expect(await admitCode(p, 'http://10.1.200.3/')).toBeUndefined();
    expect(await admitCode(p, 'http://[::1]/')).toBeUndefined();
    expect(await admitCode(p, 'http://corp.test/')).toBe(WebErrorCode.ADDRESS_REFUSED);
    expect(await admitCode(p, 'http://other.internal/')).toBe(WebErrorCode.ADDRESS_REFUSED);
    expect(await admitCode(p, 'http://127.0.0.2/')).toBe(WebErrorCode.ADDRESS_REFUSED);
    expect(await admitCode(p, 'http://10.2.0.1/')).toBe(WebErrorCode.ADDRESS_REFUSED);
    // The allow-list never excuses an odd spelling.
    expect(codeOf(() => p.parse('http://2130706433/'))).toBe(WebErrorCode.IP_SPELLING_REFUSED);
  });

  it('passes the abort of the call to the resolver and stops', async () => {
    const controller = new AbortController();
    const p = new TargetPolicy({
      allow: new AllowList([]),
      ports: [80],
      resolver: (_host, { signal: s }) => new Promise((_, reject) => s.addEventListener('abort', () => reject(new Error('late')))),
    });
    const pending = p.admit(p.parse('http://slow.test/'), controller.signal);
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
  });
});

describe('systemResolver', () => {
  it('answers an address literal as itself (the system resolver parses it; no DNS query is made)', async () => {
    expect(await systemResolver('127.0.0.1', { signal })).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(await systemResolver('::1', { signal })).toEqual([{ address: '::1', family: 6 }]);
  });

  it('refuses to start once the signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(systemResolver('127.0.0.1', { signal: controller.signal })).rejects.toThrow('gone');
  });
});
