import { rootCertificates } from 'node:tls';
import { type Card, defineTool, type Outcome, z } from '@deepseek-ai/dsh-core';
import { decodeBody } from './charset.js';
import { sniffTextKind } from './content-kind.js';
import { convertHtml } from './convert.js';
import { webFetchExternal } from './external.js';
import { fetchPage } from './fetch-page.js';
import type { ResolvedToolWebOptions } from './options.js';
import type { TargetPolicy } from './target-policy.js';

/** The arguments of `web_fetch`. */
export const webFetchInputSchema = z.object({
  url: z.string().min(1).describe('The http(s) URL to fetch.'),
  format: z
    .enum(['markdown', 'text', 'html'])
    .optional()
    .describe('How to return an HTML page: its main content as Markdown (default), as plain text, or the raw HTML.'),
  max_bytes: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Refuse bodies larger than this many bytes (it can only lower the configured cap).'),
});

/** The arguments of `web_fetch`, as the body receives them. */
export type WebFetchArgs = z.output<typeof webFetchInputSchema>;

/** What `web_fetch` returns. */
export interface WebFetchOutput {
  /** The URL of the response, after redirects. */
  readonly url: string;
  readonly status: number;
  readonly contentType: string;
  /** The encoding the body was decoded with, and where it was declared. */
  readonly charset: string;
  readonly charsetSource: 'bom' | 'header' | 'meta' | 'default';
  readonly format: 'markdown' | 'text' | 'html';
  readonly title?: string;
  readonly content: string;
  /** Body bytes after decompression. */
  readonly bytes: number;
  /** True when `content` was cut at `maxContentChars`. */
  readonly truncated: boolean;
  readonly redirects: readonly string[];
  /** For HTML in Markdown or text: whether the main content was found (`article`) or the whole body was used. */
  readonly extraction?: 'article' | 'body';
  readonly notice?: string;
}

const acceptHeader = 'text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.8,text/*;q=0.7,*/*;q=0.1';

/** Everything `web_fetch` needs from the plugin. */
export interface WebFetchRuntime {
  readonly options: ResolvedToolWebOptions;
  readonly policy: TargetPolicy;
  readonly userAgent: string;
}

/** The `web_fetch` tool. */
export function webFetchTool(rt: WebFetchRuntime) {
  const { options } = rt;
  const headers = { 'user-agent': rt.userAgent, accept: acceptHeader, 'accept-encoding': 'gzip, deflate, br' };
  // Node's `ca` replaces its bundled roots; extra certificates are added to them, not swapped in.
  const extra = options.ca === undefined ? undefined : typeof options.ca === 'string' ? [options.ca] : options.ca;
  const request = extra === undefined ? { headers } : { headers, ca: [...rootCertificates, ...extra] };
  return defineTool({
    name: 'web_fetch',
    description:
      "Fetch a public http(s) URL and return its content. HTML pages come back as Markdown of the page's main content (or plain text, or raw HTML with format). Redirects are followed. Binary files, very large bodies, and private or local network addresses are refused.",
    input: webFetchInputSchema,
    parallel: true,
    idempotent: true,
    external: webFetchExternal,
    async execute(args, ctx): Promise<WebFetchOutput> {
      const maxBytes = Math.min(args.max_bytes ?? options.maxBytes, options.maxBytes);
      const page = await fetchPage(args.url, {
        policy: rt.policy,
        maxBytes,
        maxRedirects: options.maxRedirects,
        followRedirectsAcrossHosts: options.followRedirectsAcrossHosts,
        timeoutMs: options.timeoutMs,
        request,
        signal: ctx.signal,
      });
      const sniffed = page.kind === 'unknown' ? sniffTextKind(page.body.subarray(0, 1024).toString('latin1')) : page.kind;
      const decoded = decodeBody(page.body, page.contentType, sniffed === 'html' ? 'html' : sniffed === 'xml' ? 'xml' : 'text');
      const format = args.format ?? 'markdown';
      const converted = sniffed === 'html' && format !== 'html' ? convertHtml(decoded.text, page.url.href, format) : undefined;
      const full = converted?.content ?? decoded.text;
      const truncated = full.length > options.maxContentChars;
      const notices = [
        decoded.notice,
        truncated ? `content cut at ${options.maxContentChars} of ${full.length} characters` : undefined,
      ].filter((n): n is string => n !== undefined);
      return {
        url: page.url.href,
        status: page.status,
        contentType: page.contentType,
        charset: decoded.charset,
        charsetSource: decoded.source,
        format,
        ...(converted?.title === undefined ? {} : { title: converted.title }),
        content: truncated ? full.slice(0, options.maxContentChars) : full,
        bytes: page.body.length,
        truncated,
        redirects: page.redirects,
        ...(converted === undefined ? {} : { extraction: converted.extraction }),
        ...(notices.length === 0 ? {} : { notice: notices.join('; ') }),
      };
    },
    present: {
      presentCall: (args) => ({ title: `Fetch ${shown(args.url)}`, summary: `as ${shown(args.format ?? 'markdown')}` }),
      presentResult: (args, outcome) => resultCard(`Fetch ${args.url}`, outcome),
    },
  });
}

function shown(value: unknown, limit = 200): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

function resultCard(title: string, outcome: Outcome): Card {
  if (outcome.status === 'error') return { title, summary: `failed: ${outcome.error.code}`, body: outcome.error.message };
  if (outcome.status !== 'ok') return { title, summary: `${outcome.status}: ${outcome.code}`, body: outcome.reason };
  const out = outcome.output as unknown as WebFetchOutput;
  return {
    title: `Fetched ${out.url}`,
    summary: `${out.status} ${out.contentType || 'no content type'}, ${out.bytes} bytes${out.truncated ? ' (cut)' : ''}`,
    body: out.content.slice(0, 2_000),
    format: out.format === 'markdown' ? 'markdown' : 'text',
  };
}
