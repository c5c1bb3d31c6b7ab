import { type Card, defineTool, type Outcome, z } from '@deepseek-ai/dsh-core';
import { WebErrorCode, webError } from './errors.js';
import { webSearchExternal } from './external.js';
import type { SearchProvider, SearchResult } from './search/provider.js';

/** The arguments of `web_search` (Claude Code's `WebSearch` shape). */
export const webSearchInputSchema = z.object({
  query: z.string().min(2).describe('What to search for.'),
  allowed_domains: z.array(z.string().min(1)).optional().describe('Only return results from these domains (and their subdomains).'),
  blocked_domains: z.array(z.string().min(1)).optional().describe('Never return results from these domains (and their subdomains).'),
});

/** The arguments of `web_search`, as the body receives them. */
export type WebSearchArgs = z.output<typeof webSearchInputSchema>;

/** What `web_search` returns. */
export interface WebSearchOutput {
  readonly query: string;
  readonly results: readonly SearchResult[];
}

const resultSchema = z.array(
  z.object({ title: z.string(), url: z.string(), snippet: z.string().optional() }).transform((r) => {
    const out: { title: string; url: string; snippet?: string } = { title: r.title, url: r.url };
    if (r.snippet !== undefined) out.snippet = r.snippet;
    return out;
  }),
);

const domainOf = (d: string) =>
  d
    .trim()
    .toLowerCase()
    .replace(/^\*?\./, '')
    .replace(/\.$/, '');
const within = (host: string, domains: readonly string[]) => domains.some((d) => host === d || host.endsWith(`.${d}`));

/** Keeps http(s) results whose host passes the domain lists. */
function filterResults(results: readonly SearchResult[], allowed: readonly string[], blocked: readonly string[]): SearchResult[] {
  return results.filter((r) => {
    let host: string;
    try {
      const url = new URL(r.url);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
      host = url.hostname.toLowerCase().replace(/\.$/, '');
    } catch {
      return false;
    }
    return (allowed.length === 0 || within(host, allowed)) && !within(host, blocked);
  });
}

/** The `web_search` tool over a provider. */
export function webSearchTool(provider: SearchProvider, limit: number, timeoutMs: number) {
  return defineTool({
    name: 'web_search',
    description:
      'Search the web. Returns titles, URLs and short snippets; use web_fetch to read a result. Narrow with allowed_domains or blocked_domains.',
    input: webSearchInputSchema,
    parallel: true,
    idempotent: true,
    external: webSearchExternal,
    async execute(args, ctx): Promise<WebSearchOutput> {
      const allowed = (args.allowed_domains ?? []).map(domainOf);
      const blocked = (args.blocked_domains ?? []).map(domainOf);
      const controller = new AbortController();
      const onAbort = () => controller.abort(webError(WebErrorCode.ABORTED, 'the search was aborted'));
      if (ctx.signal.aborted) onAbort();
      else ctx.signal.addEventListener('abort', onAbort, { once: true });
      const timer = setTimeout(
        () => controller.abort(webError(WebErrorCode.TOOL_TIMEOUT, `the search took longer than ${timeoutMs} ms`, { timeoutMs })),
        timeoutMs,
      );
      let raw: unknown;
      try {
        raw = await Promise.race([
          provider(args.query, {
            signal: controller.signal,
            limit,
            ...(allowed.length === 0 ? {} : { allowedDomains: allowed }),
            ...(blocked.length === 0 ? {} : { blockedDomains: blocked }),
          }),
          // A provider that ignores its signal does not hold the call past an abort.
          new Promise<never>((_, reject) =>
            controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true }),
          ),
        ]);
      } catch (error) {
        if (controller.signal.aborted) throw controller.signal.reason;
        throw webError(WebErrorCode.SEARCH_FAILED, `the search provider failed: ${(error as Error)?.message ?? String(error)}`);
      } finally {
        clearTimeout(timer);
        ctx.signal.removeEventListener('abort', onAbort);
      }
      const parsed = resultSchema.safeParse(raw);
      if (!parsed.success)
        throw webError(WebErrorCode.SEARCH_FAILED, `the search provider returned something that is not a list of { title, url, snippet? }`);
      return { query: args.query, results: filterResults(parsed.data, allowed, blocked).slice(0, limit) };
    },
    present: {
      presentCall: (args) => ({ title: `Search the web`, summary: typeof args.query === 'string' ? args.query.slice(0, 200) : '' }),
      presentResult: (args, outcome) => resultCard(`Search: ${args.query}`, outcome),
    },
  });
}

function resultCard(title: string, outcome: Outcome): Card {
  if (outcome.status === 'error') return { title, summary: `failed: ${outcome.error.code}`, body: outcome.error.message };
  if (outcome.status !== 'ok') return { title, summary: `${outcome.status}: ${outcome.code}`, body: outcome.reason };
  const out = outcome.output as unknown as WebSearchOutput;
  return {
    title,
    summary: `${out.results.length} result${out.results.length === 1 ? '' : 's'}`,
    body: out.results.map((r) => `- [${r.title}](${r.url})`).join('\n'),
    format: 'markdown',
  };
}
