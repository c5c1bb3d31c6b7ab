#!/usr/bin/env node
// Prints one table of every ratio the benches recorded in this run (scripts/bench/report.mjs),
// with ✓ where the ratio meets its target and ✗ where it does not. `--clear` empties the results
// first; `pnpm bench` runs it before and after the benches.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { resultsDir } from './report.mjs';

if (process.argv.includes('--clear')) {
  rmSync(resultsDir, { recursive: true, force: true });
  process.exit(0);
}
const rows = existsSync(resultsDir)
  ? readdirSync(resultsDir)
      .filter((name) => name.endsWith('.jsonl'))
      .sort()
      .flatMap((name) =>
        readFileSync(join(resultsDir, name), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line)),
      )
  : [];
if (rows.length === 0) {
  console.log('bench summary: no bench recorded a ratio');
  process.exit(0);
}
const cells = rows.map((r) => [r.ok ? '✓' : '✗', r.pkg, r.label, `${r.ratio.toFixed(2)}x`, `<= ${r.target}x`]);
const header = ['', 'package', 'measure', 'ratio', 'target'];
const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
const line = (c) =>
  c
    .map((v, i) => v.padEnd(widths[i]))
    .join('  ')
    .trimEnd();
console.log(`\nbench summary (${rows.filter((r) => r.ok).length} of ${rows.length} within target)`);
console.log(line(header));
for (const c of cells) console.log(line(c));
