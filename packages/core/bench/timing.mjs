// Timing helpers. Rounds of a baseline and a candidate alternate, and the figure reported is
// the median of the per-round ratios: load from other processes hits both sides of a pair.

async function timeOps(fn, ops) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < ops; i++) await fn(i);
  return Number(process.hrtime.bigint() - start) / ops;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Median time per call of `baseline` and `candidate`, and the median of their per-round ratios. */
export async function paired(baseline, candidate, { ops = 5_000, rounds = 15 } = {}) {
  await timeOps(baseline, ops);
  await timeOps(candidate, ops); // warm up the JIT on both
  const base = [];
  const cand = [];
  const ratios = [];
  for (let r = 0; r < rounds; r++) {
    const b = await timeOps(baseline, ops);
    const c = await timeOps(candidate, ops);
    base.push(b);
    cand.push(c);
    ratios.push(c / b);
  }
  return { baseline: median(base), candidate: median(cand), ratio: median(ratios) };
}

/** Same, for synchronous functions of prepared inputs (each input used once per round). */
export function pairedSync(baseline, candidate, baseInputs, candInputsPerRound, rounds = 9) {
  const base = [];
  const cand = [];
  const ratios = [];
  for (let r = 0; r < rounds; r++) {
    let start = process.hrtime.bigint();
    for (const input of baseInputs) baseline(input);
    const b = Number(process.hrtime.bigint() - start) / baseInputs.length;
    const inputs = candInputsPerRound(r);
    start = process.hrtime.bigint();
    for (const input of inputs) candidate(input);
    const c = Number(process.hrtime.bigint() - start) / inputs.length;
    base.push(b);
    cand.push(c);
    ratios.push(c / b);
  }
  return { baseline: median(base), candidate: median(cand), ratio: median(ratios) };
}

export const ns = (value) => (value >= 1000 ? `${(value / 1000).toFixed(2)} µs` : `${value.toFixed(0)} ns`);
