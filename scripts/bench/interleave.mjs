// One timing loop for the benches: the functions run in turn within each round, so a busy machine
// slows them alike, after `warmup` untimed rounds; each function's median time in ms is kept.

/** The median of `xs`. */
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * @param {(() => Promise<unknown>)[]} fns
 * @param {{ warmup?: number, rounds?: number }} [options]
 * @returns {Promise<number[]>} each function's median time in ms, in the order given
 */
export async function medianTimes(fns, { warmup = 3, rounds = 15 } = {}) {
  for (let i = 0; i < warmup; i += 1) for (const fn of fns) await fn();
  const times = fns.map(() => []);
  for (let i = 0; i < rounds; i += 1) {
    for (const [j, fn] of fns.entries()) {
      const start = performance.now();
      await fn();
      times[j].push(performance.now() - start);
    }
  }
  return times.map(median);
}
