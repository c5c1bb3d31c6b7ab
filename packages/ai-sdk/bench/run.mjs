// The AI SDK's own tool loop with and without dsh: generateText with the SDK's test model asking for one
// `read` of a 4 KB file, then answering. Five paths:
//   plain:    an SDK tool({ execute }) that reads the file with fs.readFile;
//   dsh:      aiSdkBridge(host).tools() with tool-fs's `read` (every pipeline stage, the session log in memory);
//   fs-floor: a plain SDK tool whose execute runs tool-fs's `read` through host.runStep itself (dsh's path
//             without the adapter: the floor of the dsh ratio, what core and tool-fs cost over fs.readFile);
//   wrapped:  the plain SDK tool passed through the bridge (the pipeline around the framework's own tool);
//   floor:    the plain SDK tool whose execute runs one core step itself (the pipeline without the adapter).
// Each ratio is measured in a process of its own that runs only its two paths: with all of them in one
// process the SDK's code goes polymorphic over their tools, and that skews every ratio by up to 0.15.
// Within a process the two paths alternate in rounds until two passes agree (scripts/bench/stable-ratio.mjs).
// Time is the process's CPU time (all its threads: libuv's file system pool and the collector's helpers
// included): on a loaded machine wall time charges each await on the file system pool with the
// scheduler's delay, which tool-fs's extra file system calls multiply; DSH_BENCH_CLOCK=wall measures
// wall time instead. Targets: dsh vs plain 1.1x (issue 26; its floor is fs-floor vs plain), the
// adapter's own cost 1.1x (wrapped vs floor, dsh vs fs-floor), an SDK tool through the adapter 1.3x
// (wrapped vs plain, issue 37).
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost, z } from '@deepseek-ai/dsh-core';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { recordRatio } from '../../../scripts/bench/report.mjs';
import { stableRatio } from '../../../scripts/bench/stable-ratio.mjs';
import { aiSdkBridge } from '../dist/index.js';

/** Conversations per measurement; a round measures each side once. */
const iterations = 30;
const wall = process.env.DSH_BENCH_CLOCK === 'wall';
const pairs = [
  ['plain', 'dsh'],
  ['plain', 'fs-floor'],
  ['fs-floor', 'dsh'],
  ['floor', 'wrapped'],
  ['plain', 'wrapped'],
];

if (process.argv[2] === '--pair') {
  const [baseline, path] = process.argv.slice(3);
  process.stdout.write(`${JSON.stringify(await measurePair(baseline, path))}\n`);
} else {
  const [dsh, fsFloor, dshAdapter, adapter, wrapped] = pairs.map(([baseline, path]) => {
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--pair', baseline, path], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`the ${path} vs ${baseline} process failed:\n${child.stderr}`);
    return JSON.parse(child.stdout);
  });
  const ms = (x) => `${x.toFixed(3)} ms/conversation`;
  const ratio = (r) => `${r.ratio.toFixed(2)}x (spread ${r.spread.toFixed(3)}, ${r.rounds} rounds)`;
  const added = (r) => `${((r.path - r.baseline) * 1000).toFixed(0)} µs added per conversation`;
  console.log(`ai-sdk bench (${wall ? 'wall' : 'CPU'} time; each pair in a process of its own; alternated rounds until two passes agree)`);
  console.log(`  generateText + SDK tool reading with fs.readFile     ${ms(dsh.baseline)}  (baseline)`);
  console.log(`  generateText + bridge tools (tool-fs read)           ${ms(dsh.path)}  ${ratio(dsh)}, ${added(dsh)}`);
  console.log(`  generateText + SDK tool running tool-fs read itself  ${ms(fsFloor.path)}  ${ratio(fsFloor)}: the floor (core + tool-fs)`);
  console.log(`    the bridge's own share of the dsh path: ${ratio(dshAdapter)}, ${added(dshAdapter)}`);
  console.log(`  generateText + SDK tool running one core step        ${ms(adapter.baseline)}  (the pipeline without the adapter)`);
  console.log(`  generateText + the same SDK tool through the bridge  ${ms(adapter.path)}  ${ratio(adapter)} that, ${added(adapter)}`);
  console.log(`    through the bridge vs without dsh: ${ratio(wrapped)}, ${added(wrapped)}`);
  recordRatio({
    pkg: 'ai-sdk',
    label: 'generateText, one 4 KB read: dshTools (tool-fs) vs SDK tool with fs.readFile',
    ratio: dsh.ratio,
    target: 1.1,
    spread: dsh.spread,
    rounds: dsh.rounds,
    floor: { value: fsFloor.ratio, what: "tool-fs read through host.runStep in a plain SDK tool: core and tool-fs's own work" },
  });
  recordRatio({
    pkg: 'ai-sdk',
    label: "the adapter's own cost for a dsh tool: tool-fs read through the bridge vs host.runStep in a plain SDK tool",
    ratio: dshAdapter.ratio,
    target: 1.1,
    spread: dshAdapter.spread,
    rounds: dshAdapter.rounds,
  });
  recordRatio({
    pkg: 'ai-sdk',
    label: "the adapter's own cost: an SDK tool through dshTools vs the same tool running host.runStep itself",
    ratio: adapter.ratio,
    target: 1.1,
    spread: adapter.spread,
    rounds: adapter.rounds,
  });
  recordRatio({
    pkg: 'ai-sdk',
    label: 'generateText, one 4 KB read: an SDK tool through the bridge vs the same tool without dsh',
    ratio: wrapped.ratio,
    target: 1.3,
    spread: wrapped.spread,
    rounds: wrapped.rounds,
  });
}

/** Times `baseline` and `path` in this process in alternated rounds (see stableRatio): ms per conversation of each, and the ratio. */
async function measurePair(baselineName, pathName) {
  const dir = await mkdtemp(join(tmpdir(), 'dsh-ai-sdk-bench-'));
  try {
    const file = join(dir, 'four-kb.txt');
    await writeFile(file, `${'x'.repeat(79)}\n`.repeat(52).slice(0, 4096));
    const paths = await makePaths(dir);
    const model = conversationModel(file);
    for (const name of [baselineName, pathName]) {
      const check = await generateText({ model: model(), tools: paths[name].tools, prompt: 'read it', stopWhen: stepCountIs(3) });
      const output = check.steps[0]?.toolResults[0]?.output;
      if (!(typeof output?.content === 'string' || output?.status === 'ok'))
        throw new Error(`${name} read failed: ${JSON.stringify(output)}`);
    }
    const r = await stableRatio(
      () => time(model, paths[baselineName]),
      () => time(model, paths[pathName]),
      { rounds: 9, warmup: 3, agree: 0.04, maxRounds: 36 },
    );
    return { baseline: r.base, path: r.ours, ratio: r.ratio, spread: r.spread, rounds: r.rounds };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The five paths, each a tool set (and a prepareStep for the bridge's). */
async function makePaths(dir) {
  const plainTools = {
    read: tool({
      description: 'read a file',
      inputSchema: z.object({ file_path: z.string() }),
      execute: async ({ file_path }) => ({ content: await readFile(file_path, 'utf8') }),
    }),
  };
  const host = createHost({ defaultDecision: 'allow', retainEvents: 1000 });
  await host.use(toolFs({ cwd: dir }));
  const dsh = aiSdkBridge(host);
  const wrappedHost = createHost({ defaultDecision: 'allow', retainEvents: 1000 });
  const wrapped = aiSdkBridge(wrappedHost, { tools: plainTools });
  const floorHost = createHost({ defaultDecision: 'allow', retainEvents: 1000 });
  floorHost.tools.register({
    name: 'read',
    description: 'read a file',
    input: z.object({ file_path: z.string() }),
    execute: plainTools.read.execute,
  });
  const fsHost = createHost({ defaultDecision: 'allow', retainEvents: 1000 });
  await fsHost.use(toolFs({ cwd: dir }));
  return {
    plain: { tools: plainTools },
    dsh: { tools: dsh.tools({ include: ['read'] }), prepareStep: dsh.prepareStep },
    'fs-floor': { tools: stepTools(fsHost, 'fs-floor') },
    wrapped: { tools: wrapped.tools(), prepareStep: wrapped.prepareStep },
    floor: { tools: stepTools(floorHost, 'floor') },
  };
}

/** A plain SDK `read` whose execute runs the host's `read` as a one-call step: the pipeline without the adapter. */
function stepTools(host, prefix) {
  let ids = 0;
  return {
    read: tool({
      description: 'read a file',
      inputSchema: z.object({ file_path: z.string() }),
      execute: async (input) => {
        const step = await host.runStep({ calls: [{ id: `${prefix}-${ids++}`, name: 'read', args: input }] });
        return step.results[0]?.outcome.output;
      },
    }),
  };
}

/** A fresh test model per timing: one read per conversation, then an answer. */
function conversationModel(file) {
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  };
  return () => {
    let turn = 0;
    let call = 0;
    return new MockLanguageModelV3({
      doGenerate: async () => {
        turn += 1;
        if (turn % 2 === 1) {
          call += 1;
          const input = JSON.stringify({ file_path: file });
          return {
            content: [{ type: 'tool-call', toolCallId: `c${call}`, toolName: 'read', input }],
            finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
            usage,
            warnings: [],
          };
        }
        return { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
      },
    });
  };
}

/** Now in ms: the process's CPU time (every thread), or wall time with DSH_BENCH_CLOCK=wall. */
function now() {
  if (wall) return performance.now();
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** ms per conversation of `iterations` generateText runs over one path. */
async function time(model, { tools, prepareStep }) {
  const m = model();
  const start = now();
  for (let i = 0; i < iterations; i++) {
    const options = { model: m, tools, prompt: 'read it', stopWhen: stepCountIs(3) };
    const result = await generateText(prepareStep === undefined ? options : { ...options, prepareStep });
    if (result.text !== 'done') throw new Error('the loop did not finish');
  }
  return (now() - start) / iterations;
}
