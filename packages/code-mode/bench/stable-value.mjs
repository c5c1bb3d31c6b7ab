// A time that holds still on a shared, loaded machine, for rows whose target is absolute (ms) rather
// than a ratio: passes of `rounds` runs, doubled until two passes' medians agree within `agree` (a
// fraction of the value) or `maxRounds` is reached. The value is the median of the last two passes;
// the spread is how far their medians were apart, in the value's unit.
import { median } from '../../../scripts/bench/interleave.mjs';

/**
 * @param {() => Promise<number>} measure one measurement (a time in ms, say)
 * @param {{ rounds?: number, warmup?: number, agree?: number, maxRounds?: number }} [options]
 * @returns {Promise<{ value: number, spread: number, rounds: number, agreed: boolean, samples: number[] }>}
 */
export async function stableValue(measure, { rounds = 15, warmup = 2, agree = 0.1, maxRounds = 240 } = {}) {
  for (let i = 0; i < warmup; i += 1) await measure();
  let n = rounds;
  for (;;) {
    const first = await pass(measure, n);
    const second = await pass(measure, n);
    const spread = Math.abs(median(first) - median(second));
    const samples = [...first, ...second];
    const value = median(samples);
    const agreed = spread <= agree * value;
    if (agreed || n * 2 > maxRounds) return { value, spread, rounds: 2 * n, agreed, samples };
    n *= 2;
  }
}

async function pass(measure, rounds) {
  const out = [];
  for (let i = 0; i < rounds; i += 1) out.push(await measure());
  return out;
}
