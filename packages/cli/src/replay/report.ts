import { relativeTo } from '../render/cards.js';
import type { Style } from '../render/style.js';
import { describeExpectation, type ExpectationResult } from './expectations.js';
import type { PolicyAdvice } from './policy-advice.js';
import type { ReplayRow, RowDecision } from './rows.js';

/** Counts over every row, and per deciding policy. */
export interface ReplaySummary {
  readonly calls: number;
  readonly decisions: Readonly<Record<RowDecision, number>>;
  /** Per tap, guard or handler that denied or asked: how many calls. */
  readonly byPolicy: Readonly<Record<string, { readonly deny: number; readonly ask: number }>>;
}

/** Counts the rows. */
export function summarise(rows: readonly ReplayRow[]): ReplaySummary {
  const decisions: Record<RowDecision, number> = { allow: 0, ask: 0, deny: 0, error: 0, unmapped: 0 };
  const byPolicy: Record<string, { deny: number; ask: number }> = {};
  for (const row of rows) {
    decisions[row.decision] += 1;
    if (row.decision === 'deny' || row.decision === 'ask') {
      const entry = byPolicy[row.by] ?? { deny: 0, ask: 0 };
      entry[row.decision] += 1;
      byPolicy[row.by] = entry;
    }
  }
  return { calls: rows.length, decisions, byPolicy };
}

const maxReason = 110;
const maxTarget = 48;

/** How the table is laid out. */
export interface TableOptions {
  /** Reasons in full (output that is not a terminal: a file, a pipe, a CI log); else cut to fit a line. */
  readonly wide: boolean;
  /** Paths under it are shown relative to it. */
  readonly workspace?: string;
}

/** The table, the summary and the expectations, for a terminal. */
export function renderReplay(
  style: Style,
  rows: readonly ReplayRow[],
  summary: ReplaySummary,
  expectations: readonly ExpectationResult[] | undefined,
  options: TableOptions = { wide: false },
): string {
  const header = ['CALL', 'TOOL', 'TARGET', 'DECISION', 'STAGE', 'BY', 'REASON'];
  const cells = rows.map((r) => [
    r.call,
    r.tool === undefined || r.tool === r.recordedName ? r.recordedName : `${r.recordedName}→${r.tool}`,
    cut(oneLine(relativeTo(options.workspace, r.target ?? '')), maxTarget),
    decisionCell(r),
    r.stage,
    r.by,
    options.wide ? oneLine(r.reason) : cut(oneLine(r.reason), maxReason),
  ]);
  const widths = header.map((h, i) => Math.min(48, Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length))));
  const pad = (text: string, i: number): string => (i === header.length - 1 ? text : text.padEnd(widths[i] ?? 0));
  const colourOf = (d: RowDecision): ((t: string) => string) =>
    d === 'allow' ? style.green : d === 'deny' || d === 'error' ? style.red : d === 'ask' ? style.yellow : style.dim;
  const out: string[] = [style.bold(header.map(pad).join('  '))];
  rows.forEach((r, n) => {
    const line = (cells[n] ?? []).map((c, i) => pad(c, i));
    line[3] = colourOf(r.decision)(line[3] ?? '');
    out.push(line.join('  '));
  });
  const d = summary.decisions;
  out.push(
    '',
    `${style.bold(`${summary.calls} calls:`)} ${d.allow} allow, ${d.ask} ask, ${d.deny} deny, ${d.error} error, ${d.unmapped} unmapped`,
  );
  const policies = Object.entries(summary.byPolicy).sort(([a], [b]) => a.localeCompare(b));
  if (policies.length > 0) {
    out.push('by policy:');
    const w = Math.max(...policies.map(([name]) => name.length));
    for (const [name, c] of policies) out.push(`  ${name.padEnd(w)}  ${c.deny} deny, ${c.ask} ask`);
  }
  if (expectations !== undefined) {
    const failed = expectations.filter((e) => !e.ok);
    out.push('', style.bold(`expectations: ${expectations.length - failed.length} of ${expectations.length} hold`));
    for (const e of expectations) {
      out.push(`  ${e.ok ? style.green('✔') : style.red('✘')} ${describeExpectation(e.expectation)}`);
      for (const f of e.failures) out.push(`      ${style.red(f)}`);
    }
  }
  return `${out.join('\n')}\n`;
}

/**
 * `allow [exit 0]`, `ask→allowed`, `deny FS_NOT_READ (asked: allowed)`: the
 * arrow only follows `ask`, so a label never reads as allowed and denied at once.
 */
function decisionCell(r: ReplayRow): string {
  const approval = r.approval === undefined ? '' : r.decision === 'ask' ? `→${r.approval}` : '';
  const asked = r.approval !== undefined && r.decision !== 'ask' ? ` (asked: ${r.approval})` : '';
  return `${r.decision}${approval}${r.code === undefined ? '' : ` ${r.code}`}${asked}${r.result === undefined ? '' : ` [${r.result}]`}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function cut(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

/**
 * How to fix the policy: hits per configured rule (and the ones that never
 * matched), calls decided by the mode, and allow rules to paste into
 * `.claude/settings.json` for the calls that were asked, each with the calls
 * it covers.
 */
export function renderAdvice(style: Style, advice: PolicyAdvice, rows: readonly ReplayRow[]): string {
  const out: string[] = ['', style.bold('Permission rules, by how many replayed calls each decided:')];
  if (advice.rules.length === 0) out.push('  (no permission rules are configured)');
  const w = {
    list: Math.max(0, ...advice.rules.map((r) => r.list.length)),
    rule: Math.max(0, ...advice.rules.map((r) => r.rule.length)),
    source: Math.max(0, ...advice.rules.map((r) => r.source.length)),
  };
  for (const r of advice.rules) {
    const count = r.hits === 0 ? style.dim('never matched') : `${r.hits} call${r.hits === 1 ? '' : 's'}: ${r.calls.join(', ')}`;
    out.push(`  ${r.list.padEnd(w.list)}  ${r.rule.padEnd(w.rule)}  ${style.dim(r.source.padEnd(w.source))}  ${count}`);
  }
  for (const [mode, counts] of Object.entries(advice.byMode)) {
    const parts = Object.entries(counts).map(([decision, n]) => `${n} ${decision}`);
    out.push(`  ${style.dim(`no rule, decided by the mode ${mode}:`)} ${parts.join(', ')}`);
  }
  const targetOf = new Map(rows.map((r) => [r.call, r.target ?? r.recordedName]));
  if (advice.suggestions.length > 0) {
    out.push(
      '',
      style.bold('Asked most often: allow rules that would have allowed these calls without asking'),
      style.dim('(review each, then add it to "permissions.allow" in .claude/settings.json)'),
    );
    const idWidth = Math.max(...advice.suggestions.flatMap((s) => s.covers.map((c) => c.length)));
    for (const s of advice.suggestions) {
      out.push(`  ${s.rules.map((r) => JSON.stringify(r)).join(', ')}  ${style.dim(`— ${s.label}; covers ${s.covers.length}:`)}`);
      for (const call of s.covers) out.push(`      ${call.padEnd(idWidth)}  ${style.dim(cut(oneLine(targetOf.get(call) ?? ''), 100))}`);
    }
    const all = [...new Set(advice.suggestions.flatMap((s) => s.rules))];
    out.push('', style.dim('All of them, as JSON:'), JSON.stringify({ permissions: { allow: all } }, null, 2));
  }
  if (advice.askedByRule.length > 0) {
    out.push(
      '',
      `${style.bold('Asked by an ask rule or another policy')} (no allow rule changes that; edit the rule instead): ${advice.askedByRule.join(', ')}`,
    );
  }
  return `${out.join('\n')}\n`;
}
