// Ratios measured in one run (no absolute thresholds): the same tool calls
// made by a subagent (nested runAgent through `task`) against made by the
// parent itself, on one host with the real file tools. Target: at most 1.1×.
// Measured twice: with an abort signal on the parent's loop (as an interactive
// session runs, Ctrl-C), and with none. A subagent's calls always follow the
// task call's signal, so against a parent that has none they also pay core's
// abortable-call path; the first ratio compares like with like.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { runAgent } from '@deepseek-ai/dsh-agent';
import { createHost } from '@deepseek-ai/dsh-core';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { recordRatio } from '../../../scripts/bench/report.mjs';
import { toolSubagent } from '../dist/index.js';

const rounds = Number(process.env.BENCH_ROUNDS ?? 15);
const turns = 40;
const callsPerTurn = 5;
const dir = mkdtempSync(join(tmpdir(), 'dsh-subagent-bench-'));
writeFileSync(join(dir, 'a.txt'), 'alpha\n'.repeat(20));

/** The model seam, scripted: `turns` turns of `callsPerTurn` reads for whoever works, then an answer. */
function scripted(worker) {
  return async (request) => {
    const turn = request.messages.filter((m) => m.role === 'assistant').length;
    const usage = { inputTokens: 1, outputTokens: 1 };
    if (request.system === 'MAIN' && worker !== 'MAIN') {
      if (turn > 0) return { text: 'done', calls: [], stop: 'end', usage };
      const args = JSON.stringify({ description: 'read', prompt: 'read a.txt', subagent_type: 'reader' });
      return { text: '', calls: [{ id: 'task-0', name: 'task', args }], stop: 'tool-use', usage };
    }
    if (turn >= turns) return { text: 'done', calls: [], stop: 'end', usage };
    const calls = Array.from({ length: callsPerTurn }, (_, i) => ({ id: `c${turn}-${i}`, name: 'read', args: '{"file_path":"a.txt"}' }));
    return { text: '', calls, stop: 'tool-use', usage };
  };
}

async function session(worker, withSignal) {
  const model = scripted(worker);
  const host = createHost({ defaultDecision: 'allow' });
  await host.use(toolFs({ cwd: dir }));
  await host.use(
    toolSubagent({
      model,
      projectDir: dir,
      homeDir: dir,
      maxTurns: turns + 1,
      maxToolCalls: turns * callsPerTurn,
      agents: [{ name: 'reader', description: 'reads', tools: 'read', prompt: 'READER' }],
    }),
  );
  const start = performance.now();
  const signal = withSignal ? new AbortController().signal : undefined;
  const result = await runAgent({
    host,
    model,
    system: 'MAIN',
    messages: [{ role: 'user', text: 'go' }],
    maxTurns: turns + 1,
    ...(signal ? { signal } : {}),
  });
  const elapsed = performance.now() - start;
  const reads = host.events.list().filter((e) => e.type === 'tool/result' && e.data.name === 'read' && e.data.outcome.status === 'ok');
  if (reads.length !== turns * callsPerTurn || result.stop !== 'end')
    throw new Error(`bench session went wrong: ${reads.length} reads, ${result.stop}`);
  return elapsed;
}

const variants = [
  ['parent, with a signal', 'MAIN', true],
  ['subagent, with a signal', 'READER', true],
  ['parent, no signal', 'MAIN', false],
  ['subagent, no signal', 'READER', false],
];
const times = variants.map(() => []);
for (const [, worker, withSignal] of variants) await session(worker, withSignal);
for (let i = 0; i < rounds; i += 1) {
  // Interleaved, so drift in machine load hits every variant alike.
  for (const [k, [, worker, withSignal]] of variants.entries()) times[k].push(await session(worker, withSignal));
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const calls = turns * callsPerTurn;
const m = times.map(median);
console.log(`${calls} read calls in ${turns} turns, median of ${rounds} sessions each`);
for (const [k, [label]] of variants.entries()) {
  console.log(`  ${label.padEnd(24)} ${m[k].toFixed(1)} ms (${((m[k] / calls) * 1000).toFixed(1)} µs a call)`);
}
recordRatio({ pkg: 'tool-subagent', label: 'subagent / parent, both with a signal', ratio: m[1] / m[0], target: 1.1 });
console.log(`  subagent / parent, parent without one: ${(m[3] / m[2]).toFixed(3)}×`);
rmSync(dir, { recursive: true, force: true });
