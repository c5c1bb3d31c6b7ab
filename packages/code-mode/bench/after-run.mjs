// What a finished run_code program leaves behind for the rest of the host, measured in one process:
// a one-call step of an async no-op tool before any program ran, and again after one.
// The depth store (an AsyncLocalStorage) turns on promise hooks for the whole process on Node 20
// and 22 while it is in use; a host that ran one program must not pay for them on every later promise.
import { createHost, z } from '@deepseek-ai/dsh-core';
import { recordRatio } from '../../../scripts/bench/report.mjs';
import { codeMode } from '../dist/index.js';

const ROUNDS = 7;
const CALLS = 40_000;

const host = createHost({ defaultDecision: 'allow', retainEvents: 64 });
host.tools.register({ name: 'noop', description: 'Does nothing.', input: z.object({}), execute: async () => 1 });
await host.use(codeMode());

/** The best round's µs per one-call step: the floor, as load only ever adds to it. */
async function stepMicros() {
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < ROUNDS; round++) {
    const start = performance.now();
    for (let i = 0; i < CALLS; i++) await host.runStep({ calls: [{ id: `c${i}`, name: 'noop', args: {} }] });
    best = Math.min(best, ((performance.now() - start) * 1000) / CALLS);
  }
  return best;
}

const before = await stepMicros();
const run = await host.runStep({ calls: [{ id: 'run', name: 'run_code', args: { code: 'return await tools.noop({});' } }] });
if (run.results[0]?.outcome.status !== 'ok') throw new Error(`the program failed: ${JSON.stringify(run.results[0]?.outcome)}`);
const after = await stepMicros();
console.log(
  `code-mode after a program (node ${process.version}): a one-call step of an async no-op ${before.toFixed(2)} µs before any program, ${after.toFixed(2)} µs after one`,
);
recordRatio({ pkg: 'code-mode', label: 'a core step after a finished program vs before any', ratio: after / before, target: 1.2 });
// The spare worker code mode keeps warm would hold the process open.
process.exit(0);
