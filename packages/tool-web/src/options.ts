import { DshError, z } from '@deepseek-ai/dsh-core';
import { AllowList } from './allow-list.js';
import { WebErrorCode } from './errors.js';
import type { Resolver } from './resolver.js';
import type { SearchProvider } from './search/provider.js';

/** The longest delay `setTimeout` honours; longer values would fire at once. */
const maxTimerMs = 2_147_483_647;

const fn = <T>(what: string) => z.custom<T>((v) => typeof v === 'function', `must be a function (${what})`);

/** The zod schema of `toolWeb` options. */
export const toolWebOptionsSchema = z.strictObject({
  /** Targets admitted past the address checks: host names, `*.suffix` wildcards, addresses and CIDR ranges. */
  allow: z.array(z.string().min(1)).default([]),
  /** Ports `web_fetch` may connect to. */
  ports: z.array(z.number().int().min(1).max(65_535)).min(1).default([80, 443]),
  /** Resolves host names; the system resolver by default. */
  resolver: fn<Resolver>('hostname, { signal }) => Promise<{ address, family }[]').optional(),
  /** Redirects followed before `WEB_TOO_MANY_REDIRECTS`. */
  maxRedirects: z.number().int().min(0).max(20).default(5),
  /**
   * Follow redirects to another host within the call. Off by default: the model gets
   * `WEB_REDIRECT_TO_OTHER_HOST` with the new URL and calls again, so permission rules and hooks see that host.
   */
  followRedirectsAcrossHosts: z.boolean().default(false),
  /** The whole fetch (every hop, and the body) must finish within this (ms). */
  timeoutMs: z.number().int().positive().max(maxTimerMs).default(30_000),
  /** Body bytes, after decompression, above which a fetch is refused; a call's `max_bytes` can only lower it. */
  maxBytes: z
    .number()
    .int()
    .positive()
    .default(10 * 1024 * 1024),
  /** Characters of converted content returned; the rest is cut with a notice. */
  maxContentChars: z.number().int().min(1_000).default(100_000),
  /** Extra PEM certificates HTTPS trusts (an internal CA), besides Node's bundled roots. */
  ca: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
  /** The `User-Agent` header. */
  userAgent: z.string().min(1).optional(),
  /** Where `web_search` gets results; without one, `web_search` is not registered. */
  searchProvider: fn<SearchProvider>('(query, { signal, limit }) => Promise<SearchResult[]>').optional(),
  /** Results `web_search` returns at most. */
  maxSearchResults: z.number().int().min(1).max(100).default(10),
});

/** Options of `toolWeb`, as an integrator writes them: every field is optional. */
export type ToolWebOptions = z.input<typeof toolWebOptionsSchema>;

/** Options with every default filled in, and the allow-list parsed. */
export type ResolvedToolWebOptions = z.output<typeof toolWebOptionsSchema> & { readonly allowList: AllowList };

/** Validates options, naming the field on failure (`INVALID_OPTIONS`). */
export function parseToolWebOptions(options: unknown): ResolvedToolWebOptions {
  const parsed = toolWebOptionsSchema.safeParse(options ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.length ? issue.path.map(String).join('.') : 'options';
    throw new DshError(WebErrorCode.INVALID_OPTIONS, `toolWeb: ${field}: ${issue?.message ?? 'invalid'}`);
  }
  let allowList: AllowList;
  try {
    allowList = new AllowList(parsed.data.allow);
  } catch (error) {
    throw new DshError(WebErrorCode.INVALID_OPTIONS, `toolWeb: allow.${(error as Error).message}`);
  }
  return { ...parsed.data, allowList };
}
