import { DshError } from '@deepseek-ai/dsh-core';
import { WebErrorCode } from '../errors.js';
import type { SearchProvider, SearchResult } from './provider.js';

/** Options of the SearXNG provider. */
export interface SearxngOptions {
  /** The instance's base URL (`http://searx.internal:8080`); `/search` is appended. */
  readonly baseUrl: string;
  /** Extra query parameters (`categories`, `language`, `engines`, `safesearch`, `time_range`). */
  readonly params?: Readonly<Record<string, string>>;
  /** Extra request headers (an API key in front of a private instance). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The `fetch` to use; the global one by default. */
  readonly fetch?: typeof fetch;
}

interface SearxngResult {
  readonly url?: unknown;
  readonly title?: unknown;
  readonly content?: unknown;
}

/**
 * A search provider for SearXNG's JSON API (`GET /search?q=…&format=json`).
 * The instance must have `json` in `search.formats` of its `settings.yml`,
 * or it answers 403. The instance is configured by the integrator, so it is
 * reached with the plain `fetch`, not through `web_fetch`'s address policy
 * (a self-hosted instance is usually on a private address).
 */
export function searxngProvider(options: SearxngOptions): SearchProvider {
  const base = URL.canParse(options.baseUrl) ? new URL(options.baseUrl) : undefined;
  if (base === undefined || (base.protocol !== 'http:' && base.protocol !== 'https:')) {
    throw new DshError(
      WebErrorCode.INVALID_OPTIONS,
      `searxngProvider: baseUrl must be an http(s) URL, not ${JSON.stringify(options.baseUrl)}`,
    );
  }
  const doFetch = options.fetch ?? fetch;
  return async (query, { signal }) => {
    const url = new URL('search', base.href.endsWith('/') ? base : `${base.href}/`);
    url.searchParams.set('q', query);
    url.searchParams.set('format', 'json');
    for (const [key, value] of Object.entries(options.params ?? {})) url.searchParams.set(key, value);
    const response = await doFetch(url, { signal, headers: { accept: 'application/json', ...options.headers } });
    if (!response.ok) {
      await response.body?.cancel();
      const hint = response.status === 403 ? ' (is "json" listed in search.formats of the instance\'s settings.yml?)' : '';
      throw new Error(`SearXNG answered ${response.status}${hint}`);
    }
    const body = (await response.json()) as { results?: unknown };
    if (!Array.isArray(body.results)) throw new Error('SearXNG answered without a results array');
    return (body.results as SearxngResult[]).flatMap((r): SearchResult[] => {
      if (typeof r?.url !== 'string') return [];
      const title = typeof r.title === 'string' && r.title.trim() !== '' ? r.title.trim() : r.url;
      const snippet = typeof r.content === 'string' && r.content.trim() !== '' ? r.content.trim() : undefined;
      return [snippet === undefined ? { title, url: r.url } : { title, url: r.url, snippet }];
    });
  };
}
