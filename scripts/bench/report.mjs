// One place where every package's bench records its ratios, so `pnpm bench` can end with one
// summary table (scripts/bench/summary.mjs). Each call prints the usual line and appends a JSON
// line to .bench-results/<package>.jsonl at the repository's root.
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const resultsDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '.bench-results');

/**
 * Records one ratio measured against a baseline of the same run.
 * @param {{ pkg: string, label: string, ratio: number, target: number, note?: string }} result
 * @returns {boolean} whether the ratio meets its target (lower is better)
 */
export function recordRatio({ pkg, label, ratio, target, note }) {
  const ok = Number.isFinite(ratio) && ratio <= target;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${label}: ${ratio.toFixed(2)}x (target <= ${target}x)${note ? ` ${note}` : ''}`);
  mkdirSync(resultsDir, { recursive: true });
  const line = JSON.stringify({ pkg, label, ratio, target, ok, ...(note ? { note } : {}) });
  appendFileSync(join(resultsDir, `${pkg.replaceAll('/', '_')}.jsonl`), `${line}\n`);
  return ok;
}

export { resultsDir };
