/** One search result, as `web_search` returns it. */
export interface SearchResult {
  readonly title: string;
  readonly url: string;
  /** A short excerpt of the page, when the provider has one. */
  readonly snippet?: string;
}

/** What a provider is given besides the query. */
export interface SearchOptions {
  /** Aborted when the call is cancelled or times out: stop the request. */
  readonly signal: AbortSignal;
  /** How many results the tool will keep at most (after domain filtering); a provider may return more. */
  readonly limit: number;
  /** Only results from these domains (and their subdomains) are kept; a provider may narrow its query with them. */
  readonly allowedDomains?: readonly string[];
  /** Results from these domains (and their subdomains) are dropped. */
  readonly blockedDomains?: readonly string[];
}

/**
 * Where `web_search` gets its results: any function from a query to a list
 * of results. The tool validates what it returns, filters it by domain and
 * cuts it to the limit, so a provider only has to ask its backend.
 */
export type SearchProvider = (query: string, options: SearchOptions) => Promise<readonly SearchResult[]>;
