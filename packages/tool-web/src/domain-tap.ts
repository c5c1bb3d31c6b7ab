import type { Host } from '@deepseek-ai/dsh-core';
import type { DomainRules } from './domain-rules.js';

/** The tap's name, as decisions name it (`decidedBy`). */
export const domainTapName = 'tool-web/domains';

/**
 * Before permissions (stage 100), so a rule still wins: decides a `web_fetch`
 * call by its URL's destination as the bash sandbox's egress decides a
 * connection. Denied: the call is denied; allowed: the call is allowed
 * without asking, unless an earlier tap decided (permissions keeps the allow
 * unless a deny or ask rule matches);
 * unlisted, or a URL that does not parse: left to the rest of the path.
 */
export function tapDomainRules(host: Host, toolName: string, rules: DomainRules): void {
  host.hooks.preExecute.tap({ name: domainTapName, stage: 50 }, (state, info) => {
    if (info.tool?.name !== toolName || state.decision === 'deny') return undefined;
    const raw = (state.args as { url?: unknown }).url;
    let url: URL;
    try {
      url = new URL(String(raw));
    } catch {
      return undefined; // The body reports WEB_INVALID_URL.
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    const judged = rules.judge(url);
    if (judged.verdict === 'unlisted') return undefined;
    // An earlier tap's own ask or allow stands: the lists allow only what nothing has decided yet.
    if (judged.verdict === 'allow' && state.decidedBy !== undefined) return undefined;
    return { decision: judged.verdict, reason: `web_fetch: ${judged.reason}` };
  });
}
