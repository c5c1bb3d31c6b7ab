import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { permissions } from '@deepseek-ai/dsh-permissions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeResolver, startServer, type TestServer } from './fixtures/server.js';
import { toolWeb } from './index.js';

let site: TestServer;
let home: string;
beforeAll(async () => {
  site = await startServer((req, res) => {
    if (req.url === '/to-denied') {
      res.statusCode = 302;
      res.setHeader('location', site.url('/landed', 'denied.test'));
      return res.end();
    }
    res.setHeader('content-type', 'text/plain');
    res.end(`hello from ${req.headers.host}`);
  });
  home = mkdtempSync(join(tmpdir(), 'dsh-tool-web-domains-'));
});
afterAll(async () => {
  await site.close();
  rmSync(home, { recursive: true, force: true });
});

const names = ['example.test', 'a.example.test', 'evil-example.test', 'allowed.test', 'denied.test'];

/** tool-web on a test host, every test name resolving to the loopback server (admitted past the address checks). */
async function webHost(options: { followRedirectsAcrossHosts?: boolean; defaultDecision?: 'allow' | 'ask' } = {}) {
  const resolver = fakeResolver(Object.fromEntries(names.map((n) => [n, '127.0.0.1'])));
  const { defaultDecision = 'allow', ...web } = options;
  const plugin = toolWeb({ allow: ['127.0.0.1'], ports: [site.port], resolver, ...web });
  const t = await createTestHost({ defaultDecision, plugins: [plugin] });
  return { ...t, resolver };
}

describe('web_fetch under the host sandbox policy', () => {
  it('denies a call whose URL a deniedDomains pattern matches, naming the pattern, before resolving or connecting', async () => {
    const t = await webHost();
    t.host.sandboxPolicy.contribute('test', () => ({ network: { deniedDomains: ['*.example.test'] } }));
    const before = site.connections();
    expect(await t.call('web_fetch', { url: site.url('/', 'a.example.test') })).toMatchObject({
      status: 'denied',
      stage: 'pre-execute',
      reason: expect.stringContaining('deniedDomains pattern "*.example.test"'),
    });
    expect(t.resolver.calls).not.toContain('a.example.test');
    expect(site.connections()).toBe(before);
  });

  it('reads a wildcard as egress does: an allowed *.example.test runs a.example.test unasked, and asks about example.test and evil-example.test', async () => {
    const t = await webHost({ defaultDecision: 'ask' });
    t.host.sandboxPolicy.contribute('test', () => ({ network: { allowedDomains: ['*.example.test'] } }));
    expect(await t.call('web_fetch', { url: site.url('/', 'a.example.test') })).toMatchObject({
      status: 'ok',
      output: { content: `hello from a.example.test:${site.port}` },
    });
    for (const name of ['example.test', 'evil-example.test'])
      expect(await t.call('web_fetch', { url: site.url('/', name) })).toMatchObject({ status: 'denied', stage: 'approval' });
  });

  it("leaves an earlier tap's ask standing for an allowed domain", async () => {
    const t = await webHost({ defaultDecision: 'ask' });
    t.host.sandboxPolicy.contribute('test', () => ({ network: { allowedDomains: ['*.example.test'] } }));
    t.host.hooks.preExecute.tap({ name: 'cautious', stage: 10 }, () => ({ decision: 'ask', reason: 'always ask' }));
    expect(await t.call('web_fetch', { url: site.url('/', 'a.example.test') })).toMatchObject({ status: 'denied', stage: 'approval' });
  });

  it('denies a.example.test but not evil-example.test under a denied *.example.test', async () => {
    const t = await webHost();
    t.host.sandboxPolicy.contribute('test', () => ({ network: { deniedDomains: ['*.example.test'] } }));
    expect(await t.call('web_fetch', { url: site.url('/', 'evil-example.test') })).toMatchObject({
      status: 'ok',
      output: { content: `hello from evil-example.test:${site.port}` },
    });
    expect(await t.call('web_fetch', { url: site.url('/', 'a.example.test') })).toMatchObject({ status: 'denied' });
  });

  it('judges each redirect hop: a redirect from an allowed host to a denied one stops at that hop', async () => {
    const t = await webHost({ followRedirectsAcrossHosts: true });
    t.host.sandboxPolicy.contribute('test', () => ({
      network: { allowedDomains: ['allowed.test'], deniedDomains: ['denied.test'] },
    }));
    const requestsBefore = site.requests.length;
    expect(await t.call('web_fetch', { url: site.url('/to-denied', 'allowed.test') })).toMatchObject({
      status: 'error',
      error: { code: 'WEB_DOMAIN_DENIED', data: { host: 'denied.test', port: site.port, pattern: 'denied.test' } },
    });
    expect(site.requests.slice(requestsBefore)).toEqual(['/to-denied']);
    expect(t.resolver.calls).not.toContain('denied.test');
  });

  it('follows a change of the policy on the next call', async () => {
    const t = await webHost();
    expect(await t.call('web_fetch', { url: site.url('/', 'denied.test') })).toMatchObject({ status: 'ok' });
    const remove = t.host.sandboxPolicy.contribute('test', () => ({ network: { deniedDomains: ['denied.test'] } }));
    expect(await t.call('web_fetch', { url: site.url('/', 'denied.test') })).toMatchObject({ status: 'denied' });
    remove();
    expect(await t.call('web_fetch', { url: site.url('/', 'denied.test') })).toMatchObject({ status: 'ok' });
  });

  it('denies every fetch while the host sandbox policy cannot be read (fail closed)', async () => {
    const t = await webHost();
    t.host.sandboxPolicy.contribute('broken', () => {
      throw new Error('settings file unreadable');
    });
    expect(await t.call('web_fetch', { url: site.url('/', 'allowed.test') })).toMatchObject({
      status: 'denied',
      reason: expect.stringContaining('settings file unreadable'),
    });
  });
});

describe('WebFetch(domain:…) deny rules from permissions', () => {
  async function governed(rules: { allow?: string[]; deny?: string[] }) {
    const perms = permissions({ projectDir: home, homeDir: home, settingsFiles: false, grantsFile: false, rules });
    const resolver = fakeResolver(Object.fromEntries(names.map((n) => [n, '127.0.0.1'])));
    const web = toolWeb({ allow: ['127.0.0.1'], ports: [site.port], resolver, followRedirectsAcrossHosts: true });
    return await createTestHost({ defaultDecision: 'ask', plugins: [web, perms], approval: perms.approval(() => 'rejected') });
  }

  it('stops a redirect from an allowed domain to a domain a deny rule names, inside the call', async () => {
    const t = await governed({ allow: ['WebFetch(domain:allowed.test)'], deny: ['WebFetch(domain:denied.test)'] });
    // The same list the bash sandbox's egress reads.
    expect(t.host.sandboxPolicy.current().network.deniedDomains).toContain('denied.test');
    const requestsBefore = site.requests.length;
    expect(await t.call('web_fetch', { url: site.url('/to-denied', 'allowed.test') })).toMatchObject({
      status: 'error',
      error: { code: 'WEB_DOMAIN_DENIED', data: { host: 'denied.test', pattern: 'denied.test' } },
    });
    expect(site.requests.slice(requestsBefore)).toEqual(['/to-denied']);
  });
});
