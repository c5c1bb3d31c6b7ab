// A ratio that holds still on a shared, loaded machine. Within each round the two sides run once each,
// in alternating order, and the round's ratio is taken; a pass is the median of its rounds' ratios.
// Two passes must agree within `agree`; until they do, both are measured again with twice the rounds
// (up to `maxRounds`). The ratio is the median of every round of the last two passes, and the spread
// is how far those two passes were apart.
import { median } from './interleave.mjs';

/**
 * @param {() => Promise<number>} base one measurement of the baseline (a time, or CPU time, in any unit)
 * @param {() => Promise<number>} ours one measurement of what is compared with it, in the same unit
 * @param {{ rounds?: number, warmup?: number, agree?: number, maxRounds?: number }} [options]
 * @returns {Promise<{ ratio: number, spread: number, rounds: number, agreed: boolean, base: number, ours: number, spreadOurs: number,
 *   passes: { base: number, ours: number }[] }>}
 *   `base` and `ours` are the medians of each side over the last two passes; `spreadOurs` is how far
 *   the two passes' medians of `ours` were apart, in its own unit; `passes` holds each pass's medians
 */
export async function stableRatio(base, ours, { rounds = 9, warmup = 2, agree = 0.05, maxRounds = 144 } = {}) {
  for (let i = 0; i < warmup; i += 1) {
    await base();
    await ours();
  }
  let n = rounds;
  for (;;) {
    const first = await pass(base, ours, n);
    const second = await pass(base, ours, n);
    const spread = Math.abs(median(first.ratios) - median(second.ratios));
    const agreed = spread <= agree;
    if (agreed || n * 2 > maxRounds) {
      const all = (key) => [...first[key], ...second[key]];
      const spreadOurs = Math.abs(median(first.ours) - median(second.ours));
      return {
        ratio: median(all('ratios')),
        spread,
        rounds: 2 * n,
        agreed,
        base: median(all('base')),
        ours: median(all('ours')),
        spreadOurs,
        passes: [first, second].map((p) => ({ base: median(p.base), ours: median(p.ours) })),
      };
    }
    n *= 2;
  }
}

async function pass(base, ours, rounds) {
  const out = { ratios: [], base: [], ours: [] };
  for (let i = 0; i < rounds; i += 1) {
    // Alternate which side goes first, so neither always runs on a warmer (or colder) machine.
    let b;
    let o;
    if (i % 2 === 0) {
      b = await base();
      o = await ours();
    } else {
      o = await ours();
      b = await base();
    }
    out.ratios.push(o / b);
    out.base.push(b);
    out.ours.push(o);
  }
  return out;
}
