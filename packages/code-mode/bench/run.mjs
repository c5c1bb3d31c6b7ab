// Code mode benchmarks: ratios against baselines measured in the same run.
// Run with `pnpm bench` (after a build). Numbers vary with the machine; the ratios are what to compare.
import { createHost, definePlugin, defineTool, z } from '@deepseek-ai/dsh-core';
import { codeMode } from '../dist/index.js';

const CALLS = 1000;
const COLD_RUNS = 200;

const noop = definePlugin({
  name: 'bench-tools',
  version: '0.0.0',
  register(host) {
    host.tools.register(
      defineTool({ name: 'noop', description: 'Does nothing.', input: z.object({ n: z.number() }), execute: ({ n }) => ({ n }) }),
    );
  },
});

const host = createHost({ defaultDecision: 'allow', retainEvents: 1000 });
await host.use(noop);
await host.use(codeMode({ maxCalls: CALLS + 10 }));

let ids = 0;
async function runCode(code) {
  ids += 1;
  const { results } = await host.runStep({ calls: [{ id: `bench-${ids}`, name: 'run_code', args: { code } }] });
  const outcome = results[0]?.outcome;
  if (outcome?.status !== 'ok') throw new Error(`run_code failed: ${JSON.stringify(outcome)}`);
  return outcome;
}

async function time(fn) {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

async function median(repeats, fn) {
  const times = [];
  for (let i = 0; i < repeats; i++) times.push(await time(fn));
  return times.sort((a, b) => a - b)[Math.floor(repeats / 2)];
}

const directCalls = async () => {
  ids += 1;
  for (let i = 0; i < CALLS; i++) await host.tools.execute({ id: `direct-${ids}-${i}`, name: 'noop', args: { n: i } });
};
const loop = `let s = 0;\nfor (let i = 0; i < ${CALLS}; i++) s += (await tools.noop({ n: i })).n;\nreturn s;`;

// Warm up: the first runs compile the WebAssembly module and let V8 optimise both paths.
for (let i = 0; i < 5; i++) {
  await directCalls();
  await runCode(loop);
}

// 1. Direct calls through the pipeline: the baseline for a sub-call.
const direct = await median(7, directCalls);
// 2. A program making the same calls; an empty program's run is subtracted to leave the per-call cost.
const empty = await median(7, () => runCode('return 0;'));
const program = await median(7, () => runCode(loop));
const perDirect = direct / CALLS;
const perSub = Math.max(0, program - empty) / CALLS;

// 3. Cold start of a run: a fresh sandbox, bootstrap, compile, run and dispose, through the pipeline.
// Back to back, the next sandbox is still being built when the next run starts; with a pause between
// runs (as between a model's turns), it is ready and the run does not pay for instantiation.
const backToBack = await time(async () => {
  for (let i = 0; i < COLD_RUNS; i++) await runCode('return 1;');
});
let paused = 0;
for (let i = 0; i < COLD_RUNS; i++) {
  await new Promise((resolve) => setTimeout(resolve, 5));
  paused += await time(() => runCode('return 1;'));
}
// The same pipeline around a tool that does nothing: what a run costs beyond any tool call.
const plainCalls = await time(async () => {
  for (let i = 0; i < COLD_RUNS; i++) await host.runStep({ calls: [{ id: `plain-${i}`, name: 'noop', args: { n: i } }] });
});
const perBackToBack = backToBack / COLD_RUNS;
const perPaused = paused / COLD_RUNS;
const perPlain = plainCalls / COLD_RUNS;

const us = (ms) => `${(ms * 1000).toFixed(1)} µs`;
console.log(`code-mode bench (node ${process.version}, ${CALLS} calls, ${COLD_RUNS} cold runs)`);
console.log(`  direct host.tools.execute         ${us(perDirect)} per call   (baseline 1.00×)`);
console.log(`  sub-call from a program           ${us(perSub)} per call   ${(perSub / perDirect).toFixed(2)}× direct (target ≤ 2×)`);
console.log(`  one-call step of a no-op tool     ${perPlain.toFixed(3)} ms per step   (baseline 1.00×)`);
console.log(
  `  run_code "return 1", spare ready  ${perPaused.toFixed(2)} ms per run   ${(perPaused / perPlain).toFixed(0)}× (target < 10 ms)`,
);
console.log(`  run_code "return 1", back to back ${perBackToBack.toFixed(2)} ms per run   ${(perBackToBack / perPlain).toFixed(0)}×`);
