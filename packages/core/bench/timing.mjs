// Timing helpers. Rounds of a baseline and a candidate alternate, and the figure reported is
// the median of the per-round ratios: load from other processes hits both sides of a pair.
// Time is wall time (as in the earlier turns' figures); DSH_BENCH_CLOCK=cpu measures this
// process's CPU time instead, which also charges the collector's helper threads.

const cpuClock = process.env.DSH_BENCH_CLOCK === 'cpu';

/** Now, in nanoseconds, on the chosen clock. */
function clockNow() {
  if (!cpuClock) return Number(process.hrtime.bigint());
  const { user, system } = process.cpuUsage();
  return (user + system) * 1000;
}

/** Time per call of `fn` over `ops` calls, on the chosen clock. */
export async function timeOps(fn, ops) {
  const start = clockNow();
  for (let i = 0; i < ops; i++) await fn(i);
  return (clockNow() - start) / ops;
}

export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Median time per call of `baseline` and `candidate`, and the median of their per-round ratios. */
export async function paired(baseline, candidate, { ops = 5_000, rounds = 15 } = {}) {
  const { medians, ratios } = await interleaved([baseline, candidate], { ops, rounds });
  return { baseline: medians[0], candidate: medians[1], ratio: ratios[1] };
}

/**
 * Times several functions in one run: each round times every one of them, starting
 * with a different one each round, so that load and the garbage collector's debts
 * spread over all. Returns the median time per call of each, and the median of its
 * per-round ratio to the first.
 */
export async function interleaved(fns, { ops = 5_000, rounds = 15 } = {}) {
  for (const fn of fns) await timeOps(fn, ops); // warm up the JIT on every one
  const times = fns.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < fns.length; k++) {
      const which = (k + r) % fns.length;
      times[which][r] = await timeOps(fns[which], ops);
    }
  }
  return {
    medians: times.map(median),
    ratios: times.map((own) => median(own.map((t, r) => t / times[0][r]))),
  };
}

/** Same as `paired`, for synchronous functions of prepared inputs (each input used once per round). */
export function pairedSync(baseline, candidate, baseInputs, candInputsPerRound, rounds = 9) {
  const base = [];
  const cand = [];
  const ratios = [];
  for (let r = 0; r < rounds; r++) {
    let start = clockNow();
    for (const input of baseInputs) baseline(input);
    const b = (clockNow() - start) / baseInputs.length;
    const inputs = candInputsPerRound(r);
    start = clockNow();
    for (const input of inputs) candidate(input);
    const c = (clockNow() - start) / inputs.length;
    base.push(b);
    cand.push(c);
    ratios.push(c / b);
  }
  return { baseline: median(base), candidate: median(cand), ratio: median(ratios) };
}

export const ns = (value) => (value >= 1000 ? `${(value / 1000).toFixed(2)} µs` : `${value.toFixed(0)} ns`);
