/**
 * The dsh web tools: `web_fetch` (an HTTP(S) GET with SSRF protection,
 * size, time and redirect caps, and HTML turned into Markdown of the main
 * content) and `web_search` (through a pluggable provider; SearXNG's JSON
 * API ships). Both map to Claude Code's `WebFetch` and `WebSearch`, so
 * hooks and permission rules written for those apply.
 *
 * @packageDocumentation
 */
export { type AddressCategory, type AddressVerdict, type BlockedRange, blockedRanges, classifyAddress } from './address-ranges.js';
export { AllowList } from './allow-list.js';
export { type CharsetSource, type DecodedText, decodeBody } from './charset.js';
export { type ContentKind, contentKind } from './content-kind.js';
export { type ConvertedPage, convertHtml } from './convert.js';
export { type DomainJudgement, DomainRules } from './domain-rules.js';
export { WebErrorCode } from './errors.js';
export { type ExternalNames, webFetchExternal, webSearchExternal } from './external.js';
export { embeddedIpv4, type Ipv4Embedding, type Ipv4Spelling, type ParsedIpv4, parseIpv4Spelling, parseIpv6 } from './ip-address.js';
export { type ResolvedToolWebOptions, type ToolWebOptions, toolWebOptionsSchema } from './options.js';
export { toolWeb, toolWebPluginName } from './plugin.js';
export { type ResolvedAddress, type Resolver, systemResolver } from './resolver.js';
export type { SearchOptions, SearchProvider, SearchResult } from './search/provider.js';
export { type SearxngOptions, searxngProvider } from './search/searxng.js';
export { type PinnedTarget, TargetPolicy, type TargetPolicyOptions } from './target-policy.js';
export { version } from './version.js';
export { type WebFetchArgs, type WebFetchOutput, webFetchInputSchema } from './web-fetch-tool.js';
export { type WebSearchArgs, type WebSearchOutput, webSearchInputSchema } from './web-search-tool.js';
