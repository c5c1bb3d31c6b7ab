import type { Outcome } from '@deepseek-ai/dsh-core';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebErrorCode } from './errors.js';
import { startServer, type TestServer } from './fixtures/server.js';
import { type SearchProvider, searxngProvider, toolWeb } from './index.js';

/** A local stand-in for a SearXNG instance: the JSON shape of `/search?format=json`. */
let searx: TestServer;
const seen: URLSearchParams[] = [];
beforeAll(async () => {
  searx = await startServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    seen.push(url.searchParams);
    if (url.pathname !== '/searx/search' || url.searchParams.get('format') !== 'json') {
      res.statusCode = 403;
      return res.end('Forbidden');
    }
    const q = url.searchParams.get('q') ?? '';
    if (q === 'broken') {
      res.setHeader('content-type', 'application/json');
      return res.end('{"query": "broken", "results": ');
    }
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        query: q,
        number_of_results: 0,
        results: [
          {
            url: 'https://tidesandcurrents.noaa.gov/faq',
            title: 'Tides FAQ',
            content: 'Why are there two tides a day?',
            engine: 'duckduckgo',
            score: 3,
          },
          { url: 'https://www.noaa.gov/tides', title: 'NOAA tides', content: '', engine: 'bing', score: 2 },
          { url: 'https://spam.example/tides', title: 'Best tide deals', content: 'click here', engine: 'bing', score: 1 },
          { url: 'ftp://files.example/tides.txt', title: 'FTP', content: 'x', engine: 'x' },
          { title: 'no url' },
          { url: 'https://en.wikipedia.org/wiki/Tide', title: '', content: 'A tide is...', engine: 'wikipedia' },
        ],
        answers: [],
        suggestions: ['tide tables'],
        unresponsive_engines: [],
      }),
    );
  });
});
afterAll(() => searx.close());

/** The result URLs of an ok outcome. */
function urlsOf(outcome: Outcome): string[] {
  expect(outcome.status).toBe('ok');
  return (outcome as unknown as { output: { results: { url: string }[] } }).output.results.map((r) => r.url);
}

const searxng = () => searxngProvider({ baseUrl: searx.url('/searx'), params: { language: 'en' } });

describe('web_search with the SearXNG provider', () => {
  it('returns titles, URLs and snippets from the JSON API', async () => {
    const t = await createTestHost({ plugins: [toolWeb({ searchProvider: searxng() })] });
    const outcome = await t.call('web_search', { query: 'why two tides' });
    expect(outcome).toMatchObject({ status: 'ok' });
    expect((outcome as { output: unknown }).output).toEqual({
      query: 'why two tides',
      results: [
        { title: 'Tides FAQ', url: 'https://tidesandcurrents.noaa.gov/faq', snippet: 'Why are there two tides a day?' },
        { title: 'NOAA tides', url: 'https://www.noaa.gov/tides' },
        { title: 'Best tide deals', url: 'https://spam.example/tides', snippet: 'click here' },
        { title: 'https://en.wikipedia.org/wiki/Tide', url: 'https://en.wikipedia.org/wiki/Tide', snippet: 'A tide is...' },
      ],
    });
    expect(seen.at(-1)?.get('q')).toBe('why two tides');
    expect(seen.at(-1)?.get('language')).toBe('en');
  });

  it('keeps only allowed domains and their subdomains, and drops blocked ones', async () => {
    const t = await createTestHost({ plugins: [toolWeb({ searchProvider: searxng() })] });
    const allowed = await t.call('web_search', { query: 'tides', allowed_domains: ['noaa.gov'] });
    expect(urlsOf(allowed)).toEqual(['https://tidesandcurrents.noaa.gov/faq', 'https://www.noaa.gov/tides']);
    const blocked = await t.call('web_search', { query: 'tides', blocked_domains: ['spam.example', 'wikipedia.org'] });
    expect(urlsOf(blocked)).toEqual(['https://tidesandcurrents.noaa.gov/faq', 'https://www.noaa.gov/tides']);
  });

  it('returns at most maxSearchResults', async () => {
    const t = await createTestHost({ plugins: [toolWeb({ searchProvider: searxng(), maxSearchResults: 1 })] });
    expect(urlsOf(await t.call('web_search', { query: 'tides' }))).toHaveLength(1);
  });

  it('fails with WEB_SEARCH_FAILED when the instance refuses JSON, or answers broken JSON', async () => {
    const wrong = searxngProvider({ baseUrl: searx.url('/not-searx') });
    const t = await createTestHost({ plugins: [toolWeb({ searchProvider: wrong })] });
    expect(await t.call('web_search', { query: 'tides' })).toMatchObject({
      error: { code: WebErrorCode.SEARCH_FAILED, message: expect.stringMatching(/403.*search\.formats/) },
    });
    const t2 = await createTestHost({ plugins: [toolWeb({ searchProvider: searxng() })] });
    expect(await t2.call('web_search', { query: 'broken' })).toMatchObject({ error: { code: WebErrorCode.SEARCH_FAILED } });
  });

  it('refuses a baseUrl that is not an http(s) URL with INVALID_OPTIONS', () => {
    for (const baseUrl of ['not a url', 'file:///etc/searx', 'ftp://searx.test/']) {
      expect(() => searxngProvider({ baseUrl })).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
    }
  });

  it('maps to WebSearch for hooks and rules', async () => {
    const t = await createTestHost({ plugins: [toolWeb({ searchProvider: searxng() })] });
    expect(t.host.tools.findExternal('claude', 'WebSearch')?.name).toBe('web_search');
  });
});

describe('the provider seam', () => {
  it('passes the query, the limit, the domain lists and a signal to a custom provider', async () => {
    const calls: unknown[] = [];
    const provider: SearchProvider = async (query, options) => {
      calls.push({ query, limit: options.limit, allowed: options.allowedDomains, aborted: options.signal.aborted });
      return [{ title: 'a', url: 'https://docs.example/a' }];
    };
    const t = await createTestHost({ plugins: [toolWeb({ searchProvider: provider })] });
    expect(await t.call('web_search', { query: 'q1', allowed_domains: ['Docs.Example'] })).toMatchObject({
      status: 'ok',
      output: { results: [{ url: 'https://docs.example/a' }] },
    });
    expect(calls).toEqual([{ query: 'q1', limit: 10, allowed: ['docs.example'], aborted: false }]);
  });

  it('fails with WEB_SEARCH_FAILED when a provider returns something that is not a result list', async () => {
    const provider = (async () => [{ name: 'no url' }]) as unknown as SearchProvider;
    const t = await createTestHost({ plugins: [toolWeb({ searchProvider: provider })] });
    expect(await t.call('web_search', { query: 'query' })).toMatchObject({ error: { code: WebErrorCode.SEARCH_FAILED } });
  });

  it('stops a provider that never answers at timeoutMs, even one that ignores its signal', async () => {
    const provider: SearchProvider = () => new Promise(() => {});
    const t = await createTestHost({ plugins: [toolWeb({ searchProvider: provider, timeoutMs: 50 })] });
    expect(await t.call('web_search', { query: 'query' })).toMatchObject({ error: { code: 'TOOL_TIMEOUT' } });
  });

  it('is not registered without a provider', async () => {
    const t = await createTestHost({ plugins: [toolWeb()] });
    expect(await t.call('web_search', { query: 'query' })).toMatchObject({ error: { code: 'UNKNOWN_TOOL' } });
  });
});
