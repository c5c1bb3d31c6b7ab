import type { HostSandboxPolicy } from '@deepseek-ai/dsh-core';
import { type DomainPolicy, domainPolicy } from '@deepseek-ai/dsh-egress';
import { WebErrorCode, webError } from './errors.js';

/** A destination judged: `pattern` names the list entry that matched; `reason` says it in a sentence. */
export type DomainJudgement =
  | { readonly verdict: 'deny'; readonly host: string; readonly port: number; readonly pattern?: string; readonly reason: string }
  | { readonly verdict: 'allow'; readonly host: string; readonly port: number; readonly pattern: string; readonly reason: string }
  | { readonly verdict: 'unlisted'; readonly host: string; readonly port: number };

/**
 * The destination lists `web_fetch` shares with the bash sandbox: the
 * `allowedDomains` / `deniedDomains` of `host.sandboxPolicy` (permissions
 * contributes `WebFetch(domain:…)` rules and Claude Code's `sandbox.network`
 * there), judged by egress's `domainPolicy`, so a pattern means the same in
 * both tools. Before the call, a denied first URL denies it and an allowed
 * one allows it (`domain-tap.ts`); inside the call, every hop is checked
 * again, and a denied one is refused. The SSRF address checks apply to all.
 */
export class DomainRules {
  readonly #source: HostSandboxPolicy;
  #cached: { readonly version: number; readonly policy: DomainPolicy | Error } | undefined;

  constructor(source: HostSandboxPolicy) {
    this.#source = source;
  }

  /** What the lists say of the URL's host and port; a policy that cannot be read denies (fail closed). */
  judge(url: URL): DomainJudgement {
    const host = url.hostname;
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    const policy = this.#policy();
    if (policy instanceof Error)
      return { verdict: 'deny', host, port, reason: `refused ${host}: the host's sandbox policy cannot be used: ${policy.message}` };
    const verdict = policy.check({ host, port });
    if (verdict.verdict === 'unlisted') return { verdict: 'unlisted', host, port };
    const says = verdict.verdict === 'deny' ? 'refused' : 'allowed';
    const list = verdict.verdict === 'deny' ? 'deniedDomains' : 'allowedDomains';
    return { ...verdict, host, port, reason: `${says} ${host}:${port}: it matches the ${list} pattern "${verdict.pattern}"` };
  }

  /** Throws `WEB_DOMAIN_DENIED` (with `data.pattern` when a pattern matched) when the URL's destination is denied. */
  check(url: URL): void {
    const judged = this.judge(url);
    if (judged.verdict !== 'deny') return;
    const { host, port, pattern } = judged;
    throw webError(WebErrorCode.DOMAIN_DENIED, judged.reason, pattern === undefined ? { host, port } : { host, port, pattern });
  }

  #policy(): DomainPolicy | Error {
    try {
      const merged = this.#source.current();
      if (this.#cached?.version === merged.version) return this.#cached.policy;
      const { network } = merged;
      const policy = domainPolicy({
        // As the bash sandbox reads them: with allowManagedDomainsOnly only the managed list allows.
        allowedDomains: network.allowManagedDomainsOnly ? network.managedAllowedDomains : network.allowedDomains,
        deniedDomains: network.deniedDomains,
      });
      this.#cached = { version: merged.version, policy };
      return policy;
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  }
}
