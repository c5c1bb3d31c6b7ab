import type { Style } from '../render/style.js';
import { describeExpectation, type ExpectationResult } from './expectations.js';
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

/** The table, the summary and the expectations, for a terminal. */
export function renderReplay(
  style: Style,
  rows: readonly ReplayRow[],
  summary: ReplaySummary,
  expectations: readonly ExpectationResult[] | undefined,
): string {
  const header = ['CALL', 'TOOL', 'DECISION', 'STAGE', 'BY', 'REASON'];
  const cells = rows.map((r) => [
    r.call,
    r.tool === undefined || r.tool === r.recordedName ? r.recordedName : `${r.recordedName}→${r.tool}`,
    `${r.decision}${r.approval === undefined ? '' : `→${r.approval}`}${r.code === undefined ? '' : ` ${r.code}`}${r.result === undefined ? '' : ` [${r.result}]`}`,
    r.stage,
    r.by,
    oneLine(r.reason),
  ]);
  const widths = header.map((h, i) => Math.min(48, Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length))));
  const pad = (text: string, i: number): string => (i === header.length - 1 ? text : text.padEnd(widths[i] ?? 0));
  const colourOf = (d: RowDecision): ((t: string) => string) =>
    d === 'allow' ? style.green : d === 'deny' || d === 'error' ? style.red : d === 'ask' ? style.yellow : style.dim;
  const out: string[] = [style.bold(header.map(pad).join('  '))];
  rows.forEach((r, n) => {
    const line = (cells[n] ?? []).map((c, i) => pad(c, i));
    line[2] = colourOf(r.decision)(line[2] ?? '');
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

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > maxReason ? `${flat.slice(0, maxReason - 1)}…` : flat;
}
