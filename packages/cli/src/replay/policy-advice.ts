import type { AnySessionEvent, Host } from '@deepseek-ai/dsh-core';
import type { PermissionPromptRequest, PermissionsPlugin } from '@deepseek-ai/dsh-permissions';
import type { ReplayRow } from './rows.js';

/** How often one configured rule decided a call of the replay. */
export interface RuleHits {
  readonly list: 'allow' | 'ask' | 'deny';
  /** The rule as written (`Bash(git push *)`). */
  readonly rule: string;
  /** Where it is written: `.claude/settings.json:10`, `options`. */
  readonly source: string;
  /** How many replayed calls it decided (0: it never matched one). */
  readonly hits: number;
  /** The recorded ids of those calls. */
  readonly calls: readonly string[];
}

/** An allow rule set to paste into `.claude/settings.json`, with the asked calls it would have allowed. */
export interface AllowSuggestion {
  /** Allow rules in Claude Code's syntax; together they cover each call listed. */
  readonly rules: readonly string[];
  /** What they allow, in words (`commands starting with npm test`). */
  readonly label: string;
  /** The recorded ids of the asked calls they would have allowed. */
  readonly covers: readonly string[];
}

/** What the replay says about the policy itself: which rules decided, which never did, and what to allow. */
export interface PolicyAdvice {
  /** Every configured permission rule, with its hits, in load order. */
  readonly rules: readonly RuleHits[];
  /** Calls decided by the permission mode rather than a rule, per decision (`acceptEdits` → `{ allow: 4, ask: 1 }`). */
  readonly byMode: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** Suggested allow rules, most calls covered first. */
  readonly suggestions: readonly AllowSuggestion[];
  /** Asked calls no allow rule can fix: an ask rule (or another tap) asked; the rule must change instead. */
  readonly askedByRule: readonly string[];
}

/** What the replay collects while it runs, by call id as the host saw it. */
export interface AdviceRecorder {
  /** `permissions/decision` data of top-level calls. */
  readonly decisions: Map<string, { readonly decision: string; readonly by: readonly Readonly<Record<string, unknown>>[] }>;
  /** The permission prompt's offer for each asked call: the suggested rules, most specific first, or none. */
  readonly offers: Map<string, readonly { readonly label: string; readonly rules: readonly string[] }[]>;
  /** Call this from the permission prompt. */
  noteAsked(request: PermissionPromptRequest): void;
  /** Stops listening to the host's events. */
  stop(): void;
}

/** Listens to `permissions/decision` events and the permission prompt during a replay. */
export function recordAdvice(host: Host): AdviceRecorder {
  const decisions: AdviceRecorder['decisions'] = new Map();
  const offers: AdviceRecorder['offers'] = new Map();
  const stop = host.events.subscribe((event: AnySessionEvent) => {
    if ((event.type as string) !== 'permissions/decision' || event.call === undefined) return;
    const data = event.data as unknown as { decision?: unknown; by?: unknown };
    if (typeof data.decision !== 'string') return;
    decisions.set(event.call, { decision: data.decision, by: Array.isArray(data.by) ? (data.by as Record<string, unknown>[]) : [] });
  });
  return {
    decisions,
    offers,
    noteAsked(request) {
      offers.set(request.call.id, request.remember.scopes.length > 0 ? request.remember.suggestions : []);
    },
    stop,
  };
}

const maxSuggestions = 8;

/**
 * Counts hits per configured rule and per mode, and suggests allow rules for
 * the calls that were asked only because no allow rule covered them. Each
 * suggestion comes from the permissions plugin's own offer for a call (the
 * rules a user could remember it as), and the calls it would cover are
 * found by asking the plugin itself: the rules are added as a session grant
 * (which decides like an allow rule), every asked call is checked again, and
 * the grant is revoked. Greedy: the suggestion covering most calls not yet
 * covered first; on a tie the more specific one.
 */
export async function adviseOnPolicy(
  perms: PermissionsPlugin,
  rows: readonly ReplayRow[],
  recorder: AdviceRecorder,
  idOf: (row: ReplayRow) => string | undefined,
  workspace?: string,
): Promise<PolicyAdvice> {
  const byHostId = new Map<string, ReplayRow>();
  for (const row of rows) {
    const id = idOf(row);
    if (id !== undefined) byHostId.set(id, row);
  }
  const hits = new Map<string, string[]>();
  const byMode: Record<string, Record<string, number>> = {};
  for (const [id, d] of recorder.decisions) {
    const row = byHostId.get(id);
    if (row === undefined) continue;
    const seen = new Set<string>();
    for (const by of d.by) {
      if (by.kind === 'rule') {
        const key = ruleKey(String(by.list), String(by.rule), String(by.source), typeof by.line === 'number' ? by.line : undefined);
        if (seen.has(key)) continue;
        seen.add(key);
        hits.set(key, [...(hits.get(key) ?? []), row.call]);
      } else if (by.kind === 'mode') {
        const mode = byMode[String(by.mode)] ?? {};
        mode[d.decision] = (mode[d.decision] ?? 0) + 1;
        byMode[String(by.mode)] = mode;
      }
    }
  }
  const rules: RuleHits[] = perms.rules().map((r) => {
    const calls = hits.get(ruleKey(r.list, r.rule.text, r.origin.source, r.origin.line)) ?? [];
    return { list: r.list, rule: r.rule.text, source: sourceText(r.origin.source, r.origin.line), hits: calls.length, calls };
  });

  const askedByRule: string[] = [];
  const fixable: { row: ReplayRow; args: Readonly<Record<string, unknown>> }[] = [];
  const candidates = new Map<string, { label: string; rules: readonly string[]; specificity: number }>();
  for (const [id, offer] of recorder.offers) {
    const row = byHostId.get(id);
    if (row === undefined || row.tool === undefined) continue;
    const args = objectArgs(row.args);
    if (offer.length === 0 || args === undefined) {
      askedByRule.push(row.call);
      continue;
    }
    fixable.push({ row, args });
    // A command with free text (a commit message, a quoted string) never repeats exactly: only its prefix rule is worth keeping.
    const usable = offer.filter((s, i) => !(i === 0 && offer.length > 1 && s.label === 'exactly this command' && hasFreeText(row.target)));
    usable.forEach((s, specificity) => {
      const key = JSON.stringify(s.rules);
      const known = candidates.get(key);
      if (known === undefined || specificity < known.specificity) candidates.set(key, { label: s.label, rules: s.rules, specificity });
    });
  }
  const covered = new Map<string, Set<string>>();
  for (const [key, candidate] of candidates) covered.set(key, await coveredBy(perms, candidate.rules, fixable));
  const suggestions: AllowSuggestion[] = [];
  const remaining = new Set(fixable.map((f) => f.row.call));
  while (remaining.size > 0 && suggestions.length < maxSuggestions) {
    let best: { key: string; gain: number; specificity: number } | undefined;
    for (const [key, candidate] of candidates) {
      const gain = [...(covered.get(key) ?? [])].filter((c) => remaining.has(c)).length;
      if (gain === 0) continue;
      if (best === undefined || gain > best.gain || (gain === best.gain && candidate.specificity < best.specificity)) {
        best = { key, gain, specificity: candidate.specificity };
      }
    }
    if (best === undefined) break;
    const chosen = candidates.get(best.key) as { label: string; rules: readonly string[] };
    const covers = [...(covered.get(best.key) ?? [])];
    for (const c of covers) remaining.delete(c);
    candidates.delete(best.key);
    // Checked as offered (absolute), shown as a project file can hold them: relative to the workspace.
    suggestions.push({
      rules: chosen.rules.map((r) => projectRelative(r, workspace)),
      label: projectRelative(chosen.label, workspace),
      covers,
    });
  }
  suggestions.sort((a, b) => b.covers.length - a.covers.length);
  return { rules, byMode, suggestions, askedByRule };
}

/** The recorded ids of the asked calls that `rules`, as allow rules, would have allowed. */
async function coveredBy(
  perms: PermissionsPlugin,
  rules: readonly string[],
  calls: readonly { row: ReplayRow; args: Readonly<Record<string, unknown>> }[],
): Promise<Set<string>> {
  const grant = await perms.grants.add('session', rules);
  try {
    const out = new Set<string>();
    for (const { row, args } of calls) {
      if (row.tool !== undefined && perms.check(row.tool, args).decision === 'allow') out.add(row.call);
    }
    return out;
  } finally {
    await perms.grants.revoke(grant.id);
  }
}

function objectArgs(args: ReplayRow['args']): Readonly<Record<string, unknown>> | undefined {
  if (typeof args === 'object' && args !== null) return args;
  if (typeof args !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(args);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** True when a command carries quoted text: a message or a string that will differ next time. */
function hasFreeText(command: string | undefined): boolean {
  return command !== undefined && /["']/.test(command);
}

/**
 * `Edit(//abs/ws/src/a.js)` → `Edit(./src/a.js)` for a path inside the
 * workspace (a label's `everything under /abs/ws/src` likewise); anything
 * else is left as it is.
 */
export function projectRelative(text: string, workspace: string | undefined): string {
  if (workspace === undefined || workspace === '/') return text;
  const root = workspace.replace(/\/+$/, '');
  const escaped = root.replace(/[*?[\]{}()!+@\\]/g, '\\$&');
  const rule = /^(\w+)\(\/(\/.*)\)$/.exec(text);
  if (rule !== null) {
    const path = rule[2] as string;
    if (path === escaped) return `${rule[1]}(./)`;
    if (path.startsWith(`${escaped}/`)) return `${rule[1]}(./${path.slice(escaped.length + 1)})`;
    return text;
  }
  return text
    .replace(`everything under ${root}/`, 'everything under ./')
    .replace(new RegExp(`everything under ${escapeRegExp(root)}$`), 'everything under .');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function ruleKey(list: string, rule: string, source: string, line: number | undefined): string {
  return JSON.stringify([list, rule, source, line ?? null]);
}

function sourceText(source: string, line: number | undefined): string {
  return line === undefined ? source : `${source}:${line}`;
}
