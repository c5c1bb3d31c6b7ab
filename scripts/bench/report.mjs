// One place where every package's bench records its ratios, so `pnpm bench` can end with one
// summary table (scripts/bench/summary.mjs). Each call prints the usual line and appends a JSON
// line to .bench-results/<package>.jsonl at the repository's root.
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const resultsDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '.bench-results');

/**
 * How a row stands against its target (lower is better):
 * `ok` meets it; `floor` misses it, but the floor of the design, measured in the same run, is
 * itself above the target, so no tuning of this design can meet it (the row says so, with that
 * floor), and the row is within `floorMargin` of that floor; `miss` misses a target the design could
 * meet, or stands well above its floor (then this design could get closer).
 */
export function verdictOf(value, target, floor, spread = 0) {
  if (Number.isFinite(value) && value <= target) return 'ok';
  if (floor === undefined || !Number.isFinite(floor.value) || floor.value <= target) return 'miss';
  // A floor the row itself measured well below is no floor (noise, or the wrong floor): the row misses.
  if (value + spread < floor.value) return 'miss';
  // A spread this large says the measurement is not done, not that the row sits on its floor.
  if (spread > 0.25 * value) return 'miss';
  return value - spread <= floor.value * floorMargin ? 'floor' : 'miss';
}

/** How far above its floor (as a factor) a row may stand and still be called floor-bound. */
export const floorMargin = 1.1;

/**
 * Records one ratio measured against a baseline of the same run.
 * @param {{ pkg: string, label: string, ratio: number, target: number, note?: string,
 *   spread?: number, rounds?: number, floor?: { value: number, what: string } }} result
 *   `spread`: how far two passes of the measurement were apart (see stable-ratio.mjs), `rounds` in all;
 *   `floor`: the least this design can reach, measured in the same run, and what it is
 * @returns {boolean} whether the ratio meets its target
 */
export function recordRatio({ pkg, label, ratio, target, note, spread, rounds, floor }) {
  return record({ pkg, label, value: ratio, unit: 'x', target, note, spread, rounds, floor });
}

/**
 * Records a value with an absolute target (µs added per call, say), for rows whose target is not a ratio.
 * @param {{ pkg: string, label: string, value: number, unit: string, target: number, note?: string,
 *   spread?: number, rounds?: number, floor?: { value: number, what: string } }} result
 * @returns {boolean} whether the value meets its target
 */
export function recordValue(result) {
  return record(result);
}

function record({ pkg, label, value, unit, target, note, spread, rounds, floor }) {
  const verdict = verdictOf(value, target, floor, spread);
  const digits = unit === 'x' ? 2 : 1;
  const tag = { ok: 'ok  ', miss: 'FAIL', floor: 'FLOOR' }[verdict];
  const extra = [
    spread === undefined ? '' : ` spread ${spread.toFixed(digits === 2 ? 3 : 1)}${unit === 'x' ? '' : ` ${unit}`}`,
    rounds === undefined ? '' : ` over ${rounds} rounds`,
    floor === undefined ? '' : `; design floor ${floor.value.toFixed(digits)}${unit === 'x' ? 'x' : ` ${unit}`} (${floor.what})`,
    note ? ` ${note}` : '',
  ].join('');
  const u = unit === 'x' ? 'x' : ` ${unit}`;
  console.log(`${tag} ${label}: ${value.toFixed(digits)}${u} (target <= ${target}${u})${extra}`);
  mkdirSync(resultsDir, { recursive: true });
  const line = JSON.stringify({
    pkg,
    label,
    value,
    unit,
    target,
    verdict,
    ok: verdict === 'ok',
    ...(spread === undefined ? {} : { spread }),
    ...(rounds === undefined ? {} : { rounds }),
    ...(floor === undefined ? {} : { floor }),
    ...(note ? { note } : {}),
  });
  appendFileSync(join(resultsDir, `${pkg.replaceAll('/', '_')}.jsonl`), `${line}\n`);
  return verdict === 'ok';
}

export { resultsDir };
