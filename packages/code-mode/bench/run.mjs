// Code mode benchmarks: ratios against baselines measured in the same run; never fails.
// Run with `pnpm bench` (after a build). Numbers vary with the machine; the ratios are what to compare.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { createHost, definePlugin, defineTool, z } from '@deepseek-ai/dsh-core';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { recordRatio } from '../../../scripts/bench/report.mjs';
import { codeMode } from '../dist/index.js';

const READS = 100;
const ROUNDS = 15;
const NOOP_CALLS = 1000;
const COLD_RUNS = 100;

const dir = await mkdtemp(join(tmpdir(), 'code-mode-bench-'));
const names = [];
for (let i = 0; i < READS; i++) {
  const name = `f${i}.txt`;
  // 4 KB of text in 64-character lines.
  await writeFile(join(dir, name), `${`line ${i} `.padEnd(63, 'x')}\n`.repeat(64));
  names.push(name);
}

const benchTools = definePlugin({
  name: 'bench-tools',
  version: '0.0.0',
  register(host) {
    host.tools.register(
      defineTool({ name: 'noop', description: 'Does nothing.', input: z.object({ n: z.number() }), execute: ({ n }) => ({ n }) }),
    );
    host.tools.register(
      defineTool({
        name: 'sleep',
        description: 'Waits.',
        input: z.object({ ms: z.number() }),
        execute: ({ ms }) => new Promise((resolve) => setTimeout(() => resolve(ms), ms)),
      }),
    );
  },
});

const host = createHost({ defaultDecision: 'allow', retainEvents: 1000 });
await host.use(toolFs({ roots: [dir], cwd: dir, search: 'builtin' }));
await host.use(benchTools);
await host.use(codeMode({ maxCalls: NOOP_CALLS + 10, timeoutMs: 600_000 }));
const hostile = createHost({ defaultDecision: 'allow' });
await hostile.use(benchTools);
await hostile.use(codeMode({ cpuTimeoutMs: 2000 }));

let ids = 0;
async function runCode(code, on = host) {
  ids += 1;
  const { results } = await on.runStep({ calls: [{ id: `bench-${ids}`, name: 'run_code', args: { code } }] });
  return results[0]?.outcome;
}
async function runOk(code) {
  const outcome = await runCode(code);
  if (outcome?.status !== 'ok') throw new Error(`run_code failed: ${JSON.stringify(outcome)}`);
  return outcome;
}
async function time(fn) {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * CPU time of the host's own thread in ms: on Linux the main thread's schedstat (its tid is the pid),
 * elsewhere the whole process's, which then also counts the guest worker.
 */
const hostThreadMs = (() => {
  const path = `/proc/${process.pid}/task/${process.pid}/schedstat`;
  try {
    readFileSync(path, 'latin1');
    return { exact: true, read: () => Number(readFileSync(path, 'latin1').split(' ')[0]) / 1e6 };
  } catch {
    return {
      exact: false,
      read: () => {
        const { user, system } = process.cpuUsage();
        return (user + system) / 1000;
      },
    };
  }
})();
async function timeWithHost(fn) {
  const cpu = hostThreadMs.read();
  const start = performance.now();
  await fn();
  return { wall: performance.now() - start, host: hostThreadMs.read() - cpu };
}

// 1. 100 reads of 4 KB files: through a program vs issued directly, interleaved rounds.
const readProgram = `const names = ${JSON.stringify(names)};\nlet chars = 0;\nfor (const file_path of names) chars += (await tools.read({ file_path })).content.length;\nreturn chars;`;
const directReads = async () => {
  ids += 1;
  for (let i = 0; i < READS; i++) {
    const outcome = await host.tools.execute({ id: `direct-${ids}-${i}`, name: 'read', args: { file_path: names[i] } });
    if (outcome.status !== 'ok') throw new Error(JSON.stringify(outcome));
  }
};
for (let i = 0; i < 3; i++) {
  await directReads();
  await runOk(readProgram);
}
// The same 100 reads made at once: they queue, and their answers cross to the guest in batches.
const allProgram = `const names = ${JSON.stringify(names)};\nconst read = await Promise.all(names.map((file_path) => tools.read({ file_path })));\nreturn read.reduce((n, r) => n + r.content.length, 0);`;
await runOk(allProgram);
const direct = [];
const program = [];
const all = [];
const empty = [];
for (let i = 0; i < ROUNDS; i++) {
  direct.push(await timeWithHost(directReads));
  program.push(await timeWithHost(() => runOk(readProgram)));
  all.push(await timeWithHost(() => runOk(allProgram)));
  empty.push(await timeWithHost(() => runOk('return 0;')));
}

// 2. No-op sub-calls: the bridge's own cost per call, against a direct call of the same tool.
const noopProgram = `let s = 0;\nfor (let i = 0; i < ${NOOP_CALLS}; i++) s += (await tools.noop({ n: i })).n;\nreturn s;`;
const directNoops = async () => {
  ids += 1;
  for (let i = 0; i < NOOP_CALLS; i++) await host.tools.execute({ id: `noop-${ids}-${i}`, name: 'noop', args: { n: i } });
};
await runOk(noopProgram);
const noopDirect = [];
const noopProgramTimes = [];
for (let i = 0; i < 5; i++) {
  noopDirect.push(await time(directNoops));
  noopProgramTimes.push(await time(() => runOk(noopProgram)));
}

// 3. Cold start: a run with the spare worker ready (a pause between runs, as between a model's turns),
// back to back, and a bare `new Worker` until its first message, as the floor of any worker design.
let paused = 0;
for (let i = 0; i < COLD_RUNS; i++) {
  // Long enough for the worker to build the next instance, even on a busy machine.
  await new Promise((resolve) => setTimeout(resolve, 50));
  paused += await time(() => runOk('return 1;'));
}
const backToBack = await time(async () => {
  for (let i = 0; i < COLD_RUNS; i++) await runOk('return 1;');
});
let bareWorker = 0;
for (let i = 0; i < 20; i++) {
  await new Promise((resolve) => setTimeout(resolve, 20));
  bareWorker += await time(async () => {
    const worker = new Worker("require('node:worker_threads').parentPort.postMessage(1)", { eval: true });
    await new Promise((resolve) => worker.once('message', resolve));
    await worker.terminate();
  });
}
// The floor of any design that runs the guest on another thread: two thread handoffs per call.
const echo = new Worker(
  "const { parentPort } = require('node:worker_threads'); parentPort.on('message', (m) => parentPort.postMessage(m));",
  {
    eval: true,
  },
);
await new Promise((resolve) => setTimeout(resolve, 50));
const roundTrips = [];
for (let round = 0; round < 5; round++) {
  roundTrips.push(
    await time(async () => {
      for (let i = 0; i < NOOP_CALLS; i++) {
        echo.postMessage({ t: 'answers', items: [[i, true, '{"n":1}']] });
        await new Promise((resolve) => echo.once('message', resolve));
      }
    }),
  );
}
await echo.terminate();
const plainCalls = await time(async () => {
  for (let i = 0; i < COLD_RUNS; i++) await host.runStep({ calls: [{ id: `plain-${i}`, name: 'noop', args: { n: i } }] });
});

// 4. The host's event loop while a hostile program computes inside one long BigInt operation,
// against the same while a program only waits on a tool.
async function loopDelay(code) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const outcome = await runCode(code, hostile);
  histogram.disable();
  return { p99: histogram.percentile(99) / 1e6, max: histogram.max / 1e6, code: outcome?.error?.code ?? outcome?.status };
}
const underHostile = await loopDelay('let x = (1n << 100000n) - 1n; for (;;) x * x;');
const underIdle = await loopDelay('await tools.sleep({ ms: 2000 }); return 1;');

await rm(dir, { recursive: true, force: true });

const ms = (v) => `${v.toFixed(2)} ms`;
const us = (v) => `${(v * 1000).toFixed(1)} µs`;
const wallOf = (runs) => median(runs.map((r) => r.wall));
const hostOf = (runs) => median(runs.map((r) => r.host));
const readsDirect = wallOf(direct);
const readsProgram = wallOf(program);
const readsAll = wallOf(all);
const readsProgramNet = Math.max(0, readsProgram - wallOf(empty));
// What code mode adds on the host's thread per sub-call: the program's host time (its own start taken out)
// less the same reads issued directly.
const hostPerSubCall = (hostOf(program) - hostOf(empty) - hostOf(direct)) / READS;
const hostPerDirect = hostOf(direct) / READS;
const perNoopDirect = median(noopDirect) / NOOP_CALLS;
const perNoopSub = Math.max(0, median(noopProgramTimes) - wallOf(empty)) / NOOP_CALLS;
const perPaused = paused / COLD_RUNS;
const perBare = bareWorker / 20;
console.log(`code-mode bench (node ${process.version}; medians of ${ROUNDS} interleaved rounds)`);
console.log(`  ${READS} reads of 4 KB, host.tools.execute      ${ms(readsDirect)}   (baseline 1.00×)`);
console.log(
  `  ${READS} reads of 4 KB, one run_code program  ${ms(readsProgram)}   ${(readsProgram / readsDirect).toFixed(2)}× direct (target ≤ 2×); ` +
    `${(readsProgramNet / readsDirect).toFixed(2)}× without the run's own start`,
);
console.log(
  `  host time per sub-call (${hostThreadMs.exact ? "the host thread's CPU" : 'process CPU, worker included'})  ` +
    `${us(hostPerSubCall)} more than a direct read (${us(hostPerDirect)}) (target ≤ 60 µs)`,
);
console.log(`  ${READS} reads of 4 KB, Promise.all in a program ${ms(readsAll)}   ${(readsAll / readsDirect).toFixed(2)}× direct`);
recordRatio({
  pkg: 'code-mode',
  label: `${READS} sequential reads from a program vs host.tools.execute`,
  ratio: readsProgram / readsDirect,
  target: 2,
  note: `(host time per sub-call ${us(hostPerSubCall)}, target ≤ 60 µs)`,
});
recordRatio({
  pkg: 'code-mode',
  label: `${READS} reads in one Promise.all from a program vs host.tools.execute`,
  ratio: readsAll / readsDirect,
  target: 2,
});
console.log(
  `  no-op sub-call                           ${us(perNoopSub)} per call   ${(perNoopSub / perNoopDirect).toFixed(1)}× a direct no-op call (${us(perNoopDirect)}); ` +
    `a bare thread round trip: ${us(median(roundTrips) / NOOP_CALLS)}`,
);
console.log(`  bare new Worker to first message         ${ms(perBare)}   (baseline 1.00×)`);
console.log(
  `  run_code "return 1", spare ready         ${ms(perPaused)}   ${(perPaused / perBare).toFixed(2)}× a bare worker start (target < 10 ms)`,
);
console.log(
  `  run_code "return 1", back to back        ${ms(backToBack / COLD_RUNS)}   (one-call step of a no-op tool: ${ms(plainCalls / COLD_RUNS)})`,
);
console.log(
  `  host event-loop delay, BigInt loop       p99 ${ms(underHostile.p99)}, max ${ms(underHostile.max)} (${underHostile.code}); ` +
    `waiting on a tool: p99 ${ms(underIdle.p99)}, max ${ms(underIdle.max)} (target p99 < 50 ms)`,
);
process.exit(0);
