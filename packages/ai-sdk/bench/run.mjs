// The AI SDK's own tool loop with and without dsh: generateText with the SDK's test model asking for one
// `read` of a 4 KB file, then answering. Four paths:
//   plain:   an SDK tool({ execute }) that reads the file with fs.readFile;
//   dsh:     dshTools(host) with tool-fs's `read` (every pipeline stage, the session log in memory);
//   wrapped: the plain SDK tool passed through dshTools (the pipeline around the framework's own tool);
//   floor:   the plain SDK tool whose execute runs one core step itself (the pipeline without the adapter).
// Each ratio is measured in a process of its own that runs only its two paths, interleaved: with all four
// paths in one process the SDK's code goes polymorphic over their tools, and that skews every ratio by
// up to 0.15 from run to run. Targets (1.1x): dsh vs plain (issue 26), and the adapter's own cost,
// wrapped vs floor (as the openai-agents bench measures its bridge). wrapped vs plain is printed beside them.
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
import { dshTools } from '../dist/index.js';

const rounds = 41;
const iterations = 40;
const pairs = [
  ['plain', 'dsh'],
  ['floor', 'wrapped'],
  ['plain', 'wrapped'],
];

if (process.argv[2] === '--pair') {
  const [baseline, path] = process.argv.slice(3);
  process.stdout.write(`${JSON.stringify(await measurePair(baseline, path))}\n`);
} else {
  const results = pairs.map(([baseline, path]) => {
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--pair', baseline, path], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`the ${path} vs ${baseline} process failed:\n${child.stderr}`);
    return JSON.parse(child.stdout);
  });
  const [dsh, adapter, wrapped] = results;
  const ms = (x) => `${x.toFixed(3)} ms/conversation`;
  console.log('ai-sdk bench (each pair in a process of its own; medians of interleaved rounds)');
  console.log(`  generateText + SDK tool reading with fs.readFile  ${ms(dsh.baseline)}  (baseline)`);
  console.log(`  generateText + dshTools (tool-fs read)            ${ms(dsh.path)}  ${dsh.ratio.toFixed(2)}x`);
  console.log(`  generateText + SDK tool running one core step     ${ms(adapter.baseline)}  (the pipeline without the adapter)`);
  console.log(
    `  generateText + dshTools (the same SDK tool)       ${ms(adapter.path)}  ${adapter.ratio.toFixed(2)}x that, ` +
      `${wrapped.ratio.toFixed(2)}x the plain SDK tool (${((wrapped.path - wrapped.baseline) * 1000).toFixed(0)} µs added per conversation)`,
  );
  recordRatio({
    pkg: 'ai-sdk',
    label: 'generateText, one 4 KB read: dshTools (tool-fs) vs SDK tool with fs.readFile',
    ratio: dsh.ratio,
    target: 1.1,
  });
  recordRatio({
    pkg: 'ai-sdk',
    label: "the adapter's own cost: an SDK tool through dshTools vs the same tool running host.runStep itself",
    ratio: adapter.ratio,
    target: 1.1,
    note: `(through dshTools vs without dsh: ${wrapped.ratio.toFixed(2)}x)`,
  });
}

/** Times `baseline` and `path` in this process, in alternating rounds; the median round's ratio counts. */
async function measurePair(baselineName, pathName) {
  const dir = await mkdtemp(join(tmpdir(), 'dsh-ai-sdk-bench-'));
  try {
    const file = join(dir, 'four-kb.txt');
    await writeFile(file, `${'x'.repeat(79)}\n`.repeat(52).slice(0, 4096));
    const paths = await makePaths(dir);
    const baseline = paths[baselineName];
    const path = paths[pathName];
    const model = conversationModel(file);
    const check = await generateText({ model: model(), tools: path.tools, prompt: 'read it', stopWhen: stepCountIs(3) });
    const output = check.steps[0]?.toolResults[0]?.output;
    if (!(typeof output?.content === 'string' || output?.status === 'ok'))
      throw new Error(`${pathName} read failed: ${JSON.stringify(output)}`);
    // Warm both, then alternate which goes first, so the garbage one leaves is not always collected while the other runs.
    await time(model, baseline);
    await time(model, path);
    const base = [];
    const ours = [];
    for (let r = 0; r < rounds; r++) {
      if (r % 2 === 0) {
        base.push(await time(model, baseline));
        ours.push(await time(model, path));
      } else {
        ours.push(await time(model, path));
        base.push(await time(model, baseline));
      }
    }
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    return { baseline: median(base), path: median(ours), ratio: median(ours.map((x, r) => x / base[r])) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The four paths, each a tool set (and a prepareStep for dsh's). */
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
  const dsh = dshTools(host, { include: ['read'] });
  const wrappedHost = createHost({ defaultDecision: 'allow', retainEvents: 1000 });
  const wrapped = dshTools(wrappedHost, { tools: plainTools });
  const floorHost = createHost({ defaultDecision: 'allow', retainEvents: 1000 });
  floorHost.tools.register({
    name: 'read',
    description: 'read a file',
    input: z.object({ file_path: z.string() }),
    execute: plainTools.read.execute,
  });
  let floorIds = 0;
  const floorTools = {
    read: tool({
      description: 'read a file',
      inputSchema: z.object({ file_path: z.string() }),
      execute: async (input) => {
        const step = await floorHost.runStep({ calls: [{ id: `floor-${floorIds++}`, name: 'read', args: input }] });
        return step.results[0]?.outcome.output;
      },
    }),
  };
  return {
    plain: { tools: plainTools },
    dsh: { tools: dsh.tools, prepareStep: dsh.prepareStep },
    wrapped: { tools: wrapped.tools, prepareStep: wrapped.prepareStep },
    floor: { tools: floorTools },
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

/** ms per conversation of `iterations` generateText runs over one path. */
async function time(model, { tools, prepareStep }) {
  const m = model();
  const start = performance.now();
  for (let i = 0; i < iterations; i++) {
    const options = { model: m, tools, prompt: 'read it', stopWhen: stepCountIs(3) };
    const result = await generateText(prepareStep === undefined ? options : { ...options, prepareStep });
    if (result.text !== 'done') throw new Error('the loop did not finish');
  }
  return (performance.now() - start) / iterations;
}
