import { createHost } from '@deepseek-ai/dsh-core';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebErrorCode } from './errors.js';
import { boilerplatePage } from './fixtures/pages.js';
import { fakeResolver, startServer, type TestServer } from './fixtures/server.js';
import { type ToolWebOptions, toolWeb } from './index.js';

let site: TestServer;
const requests: string[] = [];
beforeAll(async () => {
  site = await startServer((req, res) => {
    const path = req.url ?? '/';
    requests.push(`${req.method} ${path}`);
    if (path === '/article') {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(boilerplatePage);
    } else if (path === '/plain') {
      res.setHeader('content-type', 'text/plain');
      res.end('just text\nline two\n');
    } else if (path === '/missing') {
      res.statusCode = 404;
      res.end('nope');
    } else if (path.startsWith('/go?') || path.startsWith('/keep-method?')) {
      res.statusCode = path.startsWith('/go?') ? 302 : 307;
      res.setHeader('location', decodeURIComponent(path.slice(path.indexOf('?') + 1)));
      res.end();
    } else {
      res.statusCode = 500;
      res.end();
    }
  });
});
afterAll(() => site.close());

async function host(options: ToolWebOptions = {}) {
  return createTestHost({ plugins: [toolWeb({ allow: ['127.0.0.1'], ports: [site.port], ...options })] });
}

const output = (outcome: { status: string; output?: unknown }) => {
  expect(outcome.status).toBe('ok');
  return outcome.output as Record<string, unknown>;
};

describe('web_fetch on an ordinary page', () => {
  it('returns the main content as Markdown, without scripts, navigation or footer, with absolute links', async () => {
    const t = await host();
    const out = output(await t.call('web_fetch', { url: site.url('/article') }));
    const content = String(out.content);
    expect(out).toMatchObject({ status: 200, format: 'markdown', charset: 'utf-8', extraction: 'article', truncated: false });
    expect(out.title).toMatch(/Tide tables explained/i);
    expect(content).toContain('Spring and neap tides');
    expect(content).toContain(`[what chart datum means](${site.url('/guides/datum')})`);
    expect(content).toContain('```\nrange = high_water - low_water\n```');
    for (const chrome of [
      'SECRET-TRACKER',
      'SHOULD-NOT-APPEAR',
      'Subscribe now',
      'Celebrity gossip',
      'All rights reserved',
      'color: red',
    ]) {
      expect(content).not.toContain(chrome);
    }
  });

  it('returns plain text with paragraphs apart, or the raw HTML, when asked', async () => {
    const t = await host();
    const text = String(output(await t.call('web_fetch', { url: site.url('/article'), format: 'text' })).content);
    expect(text).toMatch(/twice a day.*\n\nTo read one|twice a day[^\n]*\n+To read one/s);
    expect(text).not.toContain('<p>');
    expect(text).not.toContain('SHOULD-NOT-APPEAR');
    const html = output(await t.call('web_fetch', { url: site.url('/article'), format: 'html' }));
    expect(html.content).toBe(boilerplatePage);
  });

  it('returns text bodies as they are', async () => {
    const t = await host();
    expect(output(await t.call('web_fetch', { url: site.url('/plain') }))).toMatchObject({
      content: 'just text\nline two\n',
      format: 'markdown',
    });
  });

  it('cuts long content with a notice', async () => {
    const t = await host({ maxContentChars: 1_000 });
    const out = output(await t.call('web_fetch', { url: site.url('/article'), format: 'html' }));
    expect(out).toMatchObject({ truncated: true });
    expect(String(out.content)).toHaveLength(1_000);
    expect(out.notice).toMatch(/cut at 1000/);
  });

  it('shows a pending card with the URL and a completed card with the content', async () => {
    const t = await host();
    await t.call('web_fetch', { url: site.url('/article') });
    await t.call('web_fetch', { url: site.url('/missing') });
    expect(t.ui.cards.map((c) => [c.kind, c.card.title])).toEqual([
      ['pending', `Fetch ${site.url('/article')}`],
      ['completed', `Fetched ${site.url('/article')}`],
      ['pending', `Fetch ${site.url('/missing')}`],
      ['completed', `Fetch ${site.url('/missing')}`],
    ]);
    expect(t.ui.cards[1]?.card).toMatchObject({ format: 'markdown', summary: expect.stringMatching(/^200 text\/html/) });
    expect(t.ui.cards[1]?.card.body).toContain('Spring and neap tides');
    expect(t.ui.cards[3]?.card.summary).toBe('failed: WEB_HTTP_STATUS');
  });

  it('fails with WEB_HTTP_STATUS on a 404', async () => {
    const t = await host();
    expect(await t.call('web_fetch', { url: site.url('/missing') })).toMatchObject({
      status: 'error',
      error: { code: WebErrorCode.HTTP_STATUS, data: { status: 404 } },
    });
  });

  it('registers only web_fetch when no search provider is configured', async () => {
    const t = await host();
    expect(t.host.tools.schemas().map((s) => s.name)).toEqual(['web_fetch']);
  });

  it('is refused by default under a host whose default decision is ask and which has no approval provider', async () => {
    const h = createHost();
    await h.use(toolWeb({ allow: ['127.0.0.1'], ports: [site.port] }));
    const { results } = await h.runStep({ calls: [{ id: 'c1', name: 'web_fetch', args: { url: site.url('/plain') } }] });
    expect(results[0]?.outcome.status).toBe('denied');
  });
});

describe('redirects', () => {
  it('follows a redirect and reports where it went', async () => {
    const t = await host();
    const out = output(await t.call('web_fetch', { url: site.url(`/go?${encodeURIComponent('/plain')}`) }));
    expect(out).toMatchObject({ url: site.url('/plain'), redirects: [site.url('/plain')] });
  });

  it('is idempotent: it only ever sends GET, through a 307 redirect too, so a resumed session may run it again', async () => {
    const t = await host();
    expect(t.host.tools.get('web_fetch')?.idempotent).toBe(true);
    requests.length = 0;
    const url = site.url(`/keep-method?${encodeURIComponent('/plain')}`);
    for (let i = 0; i < 2; i++) output(await t.call('web_fetch', { url }));
    expect(requests).toEqual([
      `GET /keep-method?${encodeURIComponent('/plain')}`,
      'GET /plain',
      `GET /keep-method?${encodeURIComponent('/plain')}`,
      'GET /plain',
    ]);
  });
});

describe('options', () => {
  it.each([
    [{ allow: ['http://x/'] }, /allow\.0/],
    [{ allow: ['10.0.0.0/99'] }, /allow\.0/],
    [{ ports: [] }, /ports/],
    [{ maxRedirects: -1 }, /maxRedirects/],
    [{ timeoutMs: 0 }, /timeoutMs/],
    [{ searchProvider: 'searx' }, /searchProvider/],
    [{ bogus: true }, /options|bogus/],
  ])('refuses %j with INVALID_OPTIONS naming the field', (options, field) => {
    expect(() => toolWeb(options as ToolWebOptions)).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS', message: expect.stringMatching(field) }),
    );
  });

  it('uses the injected resolver for names', async () => {
    const resolver = fakeResolver({ 'site.test': '127.0.0.1' });
    const t = await createTestHost({ plugins: [toolWeb({ allow: ['site.test'], ports: [site.port], resolver })] });
    expect(output(await t.call('web_fetch', { url: site.url('/plain', 'site.test') })).content).toContain('just text');
    expect(resolver.calls).toEqual(['site.test']);
  });
});
