#!/usr/bin/env node
// Prints one table of every row the benches recorded in this run (scripts/bench/report.mjs): ✓ where
// it meets its target, ✗ where it misses one the design could meet, and "floor" where the design's own
// floor, measured in the same run, is already above the target and the row is within 10% of it (the floor
// is printed). Each row shows its spread (how far two passes of its measurement were apart) and rounds,
// where the bench gave them.
// Exits 1 when a row misses (✗), never for a floor row. `--clear` empties the results first;
// `pnpm bench` runs it before and after the benches.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { resultsDir, verdictOf } from './report.mjs';

if (process.argv.includes('--clear')) {
  rmSync(resultsDir, { recursive: true, force: true });
  process.exit(0);
}
const recorded = existsSync(resultsDir)
  ? readdirSync(resultsDir)
      .filter((name) => name.endsWith('.jsonl'))
      .sort()
      .flatMap((name) =>
        readFileSync(join(resultsDir, name), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => normalise(JSON.parse(line))),
      )
  : [];
// A bench run again on its own (outside `pnpm bench`, which clears first) appends: its latest row counts.
const latest = new Map(recorded.map((r) => [`${r.pkg}\u0000${r.label}`, r]));
const rows = [...latest.values()];
if (rows.length === 0) {
  console.log('bench summary: no bench recorded a ratio');
  process.exit(0);
}

/** Rows written before values were recorded carry only `ratio`; every verdict is decided here again, by one rule. */
function normalise(r) {
  const value = r.value ?? r.ratio;
  const unit = r.unit ?? 'x';
  return { ...r, value, unit, verdict: verdictOf(value, r.target, r.floor, r.spread) };
}

const digits = (unit) => (unit === 'x' ? 2 : 1);
const show = (value, unit) => `${value.toFixed(digits(unit))}${unit === 'x' ? 'x' : ` ${unit}`}`;
const mark = { ok: '✓', miss: '✗', floor: 'floor' };
const cells = rows.map((r) => [
  mark[r.verdict],
  r.pkg,
  r.label,
  show(r.value, r.unit),
  `<= ${r.target}${r.unit === 'x' ? 'x' : ` ${r.unit}`}`,
  r.spread === undefined ? '' : `±${r.spread.toFixed(r.unit === 'x' ? 3 : 1)}`,
  r.rounds === undefined ? '' : String(r.rounds),
  r.floor === undefined ? '' : `${show(r.floor.value, r.unit)} (${r.floor.what})`,
]);
const header = ['', 'package', 'measure', 'value', 'target', 'spread', 'rounds', 'design floor'];
const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
const line = (c) =>
  c
    .map((v, i) => v.padEnd(widths[i]))
    .join('  ')
    .trimEnd();
const count = (verdict) => rows.filter((r) => r.verdict === verdict).length;
console.log(
  `\nbench summary (${count('ok')} of ${rows.length} within target; ${count('floor')} bound by the design's floor; ${count('miss')} missed)`,
);
console.log(line(header));
for (const c of cells) console.log(line(c));
process.exitCode = count('miss') > 0 ? 1 : 0;
