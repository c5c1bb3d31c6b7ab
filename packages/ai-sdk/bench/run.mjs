// The AI SDK's own tool loop with and without dsh, measured in one run:
// generateText with the SDK's test model asking for one `read` of a 4 KB file, then answering.
//   baseline: an SDK tool({ execute }) that reads the file with fs.readFile;
//   dsh:      dshTools(host) with tool-fs's `read` (every pipeline stage, the session log in memory).
// Target: at most 1.1x. Both sides run the same SDK loop, so the ratio is what dsh adds to a call.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost, z } from '@deepseek-ai/dsh-core';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { recordRatio } from '../../../scripts/bench/report.mjs';
import { dshTools } from '../dist/index.js';

const rounds = 25;
const iterations = 40;
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

const dir = await mkdtemp(join(tmpdir(), 'dsh-ai-sdk-bench-'));
const file = join(dir, 'four-kb.txt');
await writeFile(file, `${'x'.repeat(79)}\n`.repeat(52).slice(0, 4096));

/** A model that asks for one read per conversation, then answers. */
function model() {
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
}

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
// The same SDK tool as the baseline, passed through the pipeline: what dsh and the adapter add, without tool-fs's own work.
const wrappedHost = createHost({ defaultDecision: 'allow', retainEvents: 1000 });
const wrapped = dshTools(wrappedHost, { tools: plainTools });
// The floor of any pipeline in this loop: the baseline tool whose execute runs one core step itself, without the adapter.
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

async function time(tools, prepareStep) {
  const m = model();
  const start = performance.now();
  for (let i = 0; i < iterations; i++) {
    const options = { model: m, tools, prompt: 'read it', stopWhen: stepCountIs(3) };
    const result = await generateText(prepareStep === undefined ? options : { ...options, prepareStep });
    if (result.text !== 'done') throw new Error('the loop did not finish');
  }
  return (performance.now() - start) / iterations;
}

try {
  const check = await generateText({ model: model(), tools: dsh.tools, prompt: 'read it', stopWhen: stepCountIs(3) });
  if (check.steps[0]?.toolResults[0]?.output?.status !== 'ok')
    throw new Error(`dsh read failed: ${JSON.stringify(check.steps[0]?.toolResults[0]?.output)}`);
  // Warm every path, then alternate in short rounds so load drifts hit all alike.
  await time(plainTools);
  await time(dsh.tools, dsh.prepareStep);
  await time(wrapped.tools, wrapped.prepareStep);
  await time(floorTools);
  const plain = [];
  const withDsh = [];
  const withWrapped = [];
  const withFloor = [];
  // Each round starts with another path, so the garbage one path leaves is not always collected
  // while the same next one runs.
  const paths = [
    [plain, () => time(plainTools)],
    [withDsh, () => time(dsh.tools, dsh.prepareStep)],
    [withWrapped, () => time(wrapped.tools, wrapped.prepareStep)],
    [withFloor, () => time(floorTools)],
  ];
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < paths.length; k++) {
      const [times, run] = paths[(k + r) % paths.length];
      times.push(await run());
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  // Each round measures the three paths back to back, so a ratio within a round sees one machine load; the median round counts.
  const ratio = (xs) => median(xs.map((x, r) => x / plain[r]));
  const base = median(plain);
  const ours = median(withDsh);
  console.log(`  generateText + SDK tool reading with fs.readFile  ${base.toFixed(3)} ms/conversation  (baseline)`);
  const adapter = median(withWrapped);
  console.log(`  generateText + dshTools (tool-fs read)             ${ours.toFixed(3)} ms/conversation`);
  console.log(`  generateText + dshTools (the same SDK tool)        ${adapter.toFixed(3)} ms/conversation`);
  const floor = median(withFloor);
  console.log(
    `  generateText + SDK tool running one core step      ${floor.toFixed(3)} ms/conversation  ` +
      `(${ratio(withFloor).toFixed(2)}x: core's own floor in this loop; the adapter adds ${((adapter - floor) * 1000).toFixed(0)} µs more)`,
  );
  recordRatio({
    pkg: 'ai-sdk',
    label: 'generateText, one 4 KB read: dshTools (tool-fs) vs SDK tool with fs.readFile',
    ratio: ratio(withDsh),
    target: 1.1,
  });
  recordRatio({
    pkg: 'ai-sdk',
    label: 'generateText, one 4 KB read: the same SDK tool through dshTools vs without',
    ratio: ratio(withWrapped),
    target: 1.1,
  });
} finally {
  await rm(dir, { recursive: true, force: true });
}
