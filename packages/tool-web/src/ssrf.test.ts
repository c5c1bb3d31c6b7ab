import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { WebErrorCode } from './errors.js';
import { fakeResolver, startServer, type TestServer } from './fixtures/server.js';
import { type ToolWebOptions, toolWeb } from './index.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A server that answers "reached" and records who reached it. */
async function target(host = '127.0.0.1', port = 0, handler?: Parameters<typeof startServer>[0]) {
  const s = await startServer(
    handler ??
      ((_req, res) => {
        res.setHeader('content-type', 'text/plain');
        res.end(`reached ${host}`);
      }),
    host,
    port,
  );
  servers.push(s);
  return s;
}

async function fetchWith(options: ToolWebOptions, url: string) {
  const t = await createTestHost({ plugins: [toolWeb(options)] });
  return t.call('web_fetch', { url });
}

describe('targets refused before any packet is sent', () => {
  it.each([
    ['loopback by address', (p: number) => `http://127.0.0.1:${p}/`, WebErrorCode.ADDRESS_REFUSED],
    ['loopback in IPv4-mapped IPv6 form', (p: number) => `http://[::ffff:127.0.0.1]:${p}/`, WebErrorCode.ADDRESS_REFUSED],
    ['loopback in hex IPv4-mapped IPv6 form', (p: number) => `http://[::ffff:7f00:1]:${p}/`, WebErrorCode.ADDRESS_REFUSED],
    ['loopback by a name the resolver maps there', (p: number) => `http://localhost:${p}/`, WebErrorCode.ADDRESS_REFUSED],
    ['loopback by a name with a public and a loopback address', (p: number) => `http://mixed.test:${p}/`, WebErrorCode.ADDRESS_REFUSED],
    ['loopback in decimal', (p: number) => `http://2130706433:${p}/`, WebErrorCode.IP_SPELLING_REFUSED],
    ['loopback in hex', (p: number) => `http://0x7f.0.0.1:${p}/`, WebErrorCode.IP_SPELLING_REFUSED],
    ['loopback in octal', (p: number) => `http://0177.0.0.1:${p}/`, WebErrorCode.IP_SPELLING_REFUSED],
    ['loopback in short form', (p: number) => `http://127.1:${p}/`, WebErrorCode.IP_SPELLING_REFUSED],
    ['a URL with credentials', (p: number) => `http://admin:secret@127.0.0.1:${p}/`, WebErrorCode.CREDENTIALS_REFUSED],
  ])('refuses %s and the server sees no connection', async (_what, url, code) => {
    const s = await target();
    const resolver = fakeResolver({ localhost: '127.0.0.1', 'mixed.test': ['93.184.215.14', '127.0.0.1'] });
    const outcome = await fetchWith({ ports: [s.port], resolver }, url(s.port));
    expect(outcome).toMatchObject({ status: 'error', error: { code } });
    expect(s.connections()).toBe(0);
  });

  it('refuses an odd spelling even of an allow-listed address', async () => {
    const s = await target();
    const outcome = await fetchWith({ allow: ['127.0.0.1'], ports: [s.port] }, `http://2130706433:${s.port}/`);
    expect(outcome).toMatchObject({ status: 'error', error: { code: WebErrorCode.IP_SPELLING_REFUSED } });
    expect(s.connections()).toBe(0);
  });

  it('refuses a port outside the list, even for an allow-listed address', async () => {
    const s = await target();
    const outcome = await fetchWith({ allow: ['127.0.0.1'] }, s.url('/'));
    expect(outcome).toMatchObject({ status: 'error', error: { code: WebErrorCode.PORT_REFUSED } });
    expect(s.connections()).toBe(0);
  });

  it('reaches the same server once it is allow-listed (the refusals above are the policy, not a dead server)', async () => {
    const s = await target();
    const outcome = await fetchWith({ allow: ['127.0.0.1'], ports: [s.port] }, s.url('/'));
    expect(outcome).toMatchObject({ status: 'ok', output: { content: 'reached 127.0.0.1' } });
    expect(s.connections()).toBe(1);
  });
});

describe('redirects are checked hop by hop', () => {
  it('refuses a redirect chain that ends in a private address, after following its public hops', async () => {
    const inner = await target();
    const resolver = fakeResolver({ 'site.test': '127.0.0.1', 'cdn.site.test': '127.0.0.1', 'intranet.test': '127.0.0.1' });
    const outer = await target('127.0.0.1', 0, (req, res) => {
      const hops: Record<string, string> = {
        '/start': '/hop',
        '/hop': `http://cdn.site.test:${port()}/next`,
        '/next': `http://intranet.test:${inner.port}/admin`,
      };
      res.statusCode = 301;
      res.setHeader('location', hops[req.url ?? ''] ?? '/');
      res.end();
    });
    const port = () => outer.port;
    const outcome = await fetchWith(
      { allow: ['site.test', '*.site.test'], ports: [outer.port, inner.port], resolver, followRedirectsAcrossHosts: true },
      `http://site.test:${outer.port}/start`,
    );
    expect(outcome).toMatchObject({
      status: 'error',
      error: { code: WebErrorCode.ADDRESS_REFUSED, data: { host: 'intranet.test', address: '127.0.0.1', category: 'loopback' } },
    });
    expect(outer.requests).toEqual(['/start', '/hop', '/next']);
    expect(inner.connections()).toBe(0);
    expect(resolver.calls).toEqual(['site.test', 'site.test', 'cdn.site.test', 'intranet.test']);
  });

  it.each([
    ['the metadata address', 'http://169.254.169.254/latest/meta-data/iam/', WebErrorCode.ADDRESS_REFUSED],
    ['the metadata address in decimal', 'http://2852039166/latest/meta-data/', WebErrorCode.IP_SPELLING_REFUSED],
    ['AWS metadata over IPv6', 'http://[fd00:ec2::254]/latest/meta-data/', WebErrorCode.ADDRESS_REFUSED],
    ['a file URL', 'file:///etc/passwd', WebErrorCode.SCHEME_REFUSED],
    ['a URL with credentials', 'http://u:p@example.com/', WebErrorCode.CREDENTIALS_REFUSED],
  ])('refuses a redirect to %s', async (_what, location, code) => {
    const s = await target('127.0.0.1', 0, (_req, res) => {
      res.statusCode = 302;
      res.setHeader('location', location);
      res.end();
    });
    const outcome = await fetchWith({ allow: ['127.0.0.1'], ports: [s.port, 80], followRedirectsAcrossHosts: true }, s.url('/'));
    expect(outcome).toMatchObject({ status: 'error', error: { code } });
    expect(s.requests).toEqual(['/']);
  });

  it('refuses a redirect loop', async () => {
    const s = await target('127.0.0.1', 0, (req, res) => {
      res.statusCode = 307;
      res.setHeader('location', req.url === '/a' ? '/b' : '/a');
      res.end();
    });
    const outcome = await fetchWith({ allow: ['127.0.0.1'], ports: [s.port] }, s.url('/a'));
    expect(outcome).toMatchObject({ status: 'error', error: { code: WebErrorCode.REDIRECT_LOOP } });
    expect(s.requests).toEqual(['/a', '/b']);
  });

  it('stops after maxRedirects', async () => {
    const s = await target('127.0.0.1', 0, (req, res) => {
      res.statusCode = 302;
      res.setHeader('location', `/r${Number((req.url ?? '/r0').slice(2)) + 1}`);
      res.end();
    });
    const outcome = await fetchWith({ allow: ['127.0.0.1'], ports: [s.port], maxRedirects: 3 }, s.url('/r0'));
    expect(outcome).toMatchObject({ status: 'error', error: { code: WebErrorCode.TOO_MANY_REDIRECTS } });
    expect(s.requests).toEqual(['/r0', '/r1', '/r2', '/r3']);
  });

  it('fails with WEB_BAD_REDIRECT on a redirect without Location', async () => {
    const s = await target('127.0.0.1', 0, (_req, res) => {
      res.statusCode = 302;
      res.end();
    });
    expect(await fetchWith({ allow: ['127.0.0.1'], ports: [s.port] }, s.url('/'))).toMatchObject({
      error: { code: WebErrorCode.BAD_REDIRECT },
    });
  });

  it('stops at a redirect to another host by default, and says where it leads, so rules and hooks see the next call', async () => {
    const s = await target('127.0.0.1', 0, (req, res) => {
      if (req.url === '/elsewhere') {
        res.setHeader('content-type', 'text/plain');
        return res.end('arrived');
      }
      res.statusCode = 302;
      res.setHeader('location', req.url === '/same' ? `http://www.site.test:${s.port}/elsewhere` : `http://other.test:${s.port}/elsewhere`);
      res.end();
    });
    const resolver = fakeResolver({ 'site.test': '127.0.0.1', 'www.site.test': '127.0.0.1', 'other.test': '127.0.0.1' });
    const options = { allow: ['site.test', 'www.site.test', 'other.test'], ports: [s.port], resolver };
    expect(await fetchWith(options, `http://site.test:${s.port}/away`)).toMatchObject({
      status: 'error',
      error: { code: WebErrorCode.REDIRECT_TO_OTHER_HOST, data: { location: `http://other.test:${s.port}/elsewhere`, status: 302 } },
    });
    expect(s.requests).toEqual(['/away']);
    expect(await fetchWith(options, `http://site.test:${s.port}/same`)).toMatchObject({ status: 'ok', output: { content: 'arrived' } });
  });
});

describe('DNS rebinding', () => {
  it('connects to the address it checked, whatever the name resolves to later', async () => {
    const checked = await target('127.0.0.1');
    const rebound = await target('127.0.0.2', checked.port);
    let answers = 0;
    // First answer: an allow-listed address. Every later one: an address that is not.
    const resolver = fakeResolver({ 'rebind.test': () => (answers++ === 0 ? '127.0.0.1' : '127.0.0.2') });
    const outcome = await fetchWith({ allow: ['127.0.0.1/32'], ports: [checked.port], resolver }, `http://rebind.test:${checked.port}/`);
    expect(outcome).toMatchObject({ status: 'ok', output: { content: 'reached 127.0.0.1' } });
    expect(resolver.calls).toEqual(['rebind.test']);
    expect(rebound.connections()).toBe(0);
  });

  it('refuses when the one lookup it makes answers with a refused address', async () => {
    const checked = await target('127.0.0.1');
    const rebound = await target('127.0.0.2', checked.port);
    const resolver = fakeResolver({ 'rebind.test': '127.0.0.2' });
    const outcome = await fetchWith({ allow: ['127.0.0.1/32'], ports: [checked.port], resolver }, `http://rebind.test:${checked.port}/`);
    expect(outcome).toMatchObject({ status: 'error', error: { code: WebErrorCode.ADDRESS_REFUSED } });
    expect(checked.connections() + rebound.connections()).toBe(0);
  });
});
