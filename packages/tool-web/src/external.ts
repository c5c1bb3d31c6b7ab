import type { Dialect, ExternalName } from '@deepseek-ai/dsh-core';

/** A tool's names and argument mapping in other agents' vocabularies. */
export type ExternalNames = Readonly<Partial<Record<Dialect, ExternalName>>>;

type Input = Readonly<Record<string, unknown>>;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const strings = (v: unknown): string[] | undefined =>
  Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined;

/** What we do with the page, in the words of Claude's `prompt` (we do not run a model over it). */
function promptFor(args: Input): string {
  const format = str(args.format) ?? 'markdown';
  return format === 'html' ? 'Return the raw HTML of the page.' : `Return the main content of the page as ${format}.`;
}

/**
 * `web_fetch` as Claude Code's `WebFetch` (`{ url, prompt }`) and Gemini
 * CLI's `web_fetch` (`{ prompt }` with the URL in it). Claude's `prompt`
 * asks a model to read the page; `web_fetch` returns the page itself, so
 * toward Claude the prompt describes what we return, and from Claude it is
 * dropped. `WebFetch(domain:…)` permission rules match the `url`'s host.
 */
export const webFetchExternal: ExternalNames = Object.freeze({
  claude: Object.freeze({
    name: 'WebFetch',
    toExternal: (args: Input) => ({ url: str(args.url) ?? '', prompt: promptFor(args) }),
    fromExternal: (input: Input) => ({ url: str(input.url) ?? '' }),
  }),
  gemini: Object.freeze({
    name: 'web_fetch',
    toExternal: (args: Input) => ({ prompt: `${str(args.url) ?? ''}\n${promptFor(args)}` }),
    // Gemini's prompt may name several URLs; a call of ours fetches the first.
    fromExternal: (input: Input) => ({ url: /https?:\/\/[^\s<>"'`]+/i.exec(str(input.prompt) ?? '')?.[0] ?? '' }),
  }),
});

function searchArgs(input: Input): Record<string, unknown> {
  const out: Record<string, unknown> = { query: str(input.query) ?? '' };
  const allowed = strings(input.allowed_domains);
  const blocked = strings(input.blocked_domains);
  if (allowed !== undefined) out.allowed_domains = allowed;
  if (blocked !== undefined) out.blocked_domains = blocked;
  return out;
}

/**
 * `web_search` as Claude Code's `WebSearch` (the same
 * `{ query, allowed_domains?, blocked_domains? }`) and Gemini CLI's
 * `google_web_search` (`{ query }`; the domain lists have no place there).
 */
export const webSearchExternal: ExternalNames = Object.freeze({
  claude: Object.freeze({ name: 'WebSearch', toExternal: searchArgs, fromExternal: searchArgs }),
  gemini: Object.freeze({
    name: 'google_web_search',
    toExternal: (args: Input) => ({ query: str(args.query) ?? '' }),
    fromExternal: (input: Input) => ({ query: str(input.query) ?? '' }),
  }),
});
