// Benchmark of the LangChain bridge, printed as ratios against a baseline measured in the same run. Never fails.
// One createAgent conversation with LangChain's own fake model: one `read` of a 4 KB file, then a final text.
//   baseline: a LangChain tool() whose body reads the file with fs.readFile, no middleware;
//   dsh:      bridge.tools(host) with tool-fs's `read` and bridge.middleware(host) (every pipeline stage,
//             the session log in memory);
//   wrapped:  the baseline's own LangChain tool, run through the pipeline by the middleware (what the
//             bridge and core add to a call, without tool-fs's own work).
// Target: at most 1.1x each. All paths run the same LangGraph loop, so a ratio is what dsh adds to a call.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost, z } from '@deepseek-ai/dsh-core';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { AIMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { createAgent } from 'langchain';
import { recordRatio } from '../../../scripts/bench/report.mjs';
import { langchainBridge } from '../dist/index.js';

const rounds = 31;
const iterations = 20;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const dir = await mkdtemp(join(tmpdir(), 'dsh-langchain-bench-'));
const file = join(dir, 'four-kb.txt');
await writeFile(file, `${'x'.repeat(79)}\n`.repeat(52).slice(0, 4096));

let calls = 0;
/** Queues `count` conversations on `model`: a read, then the final text. Ids are new each time (the bridge keys calls by id). */
function queue(model, count) {
  for (let i = 0; i < count; i++) {
    calls += 1;
    model.respondWithTools([{ id: `c${calls}`, name: 'read', args: { file_path: file } }]);
    model.respond(new AIMessage('done'));
  }
}

const plainRead = tool(async ({ file_path }) => await readFile(file_path, 'utf8'), {
  name: 'read',
  description: 'read a file',
  schema: z.object({ file_path: z.string() }),
});

function plainAgent() {
  const model = fakeModel();
  return { model, agent: createAgent({ model, tools: [plainRead] }) };
}

async function dshAgent() {
  const bridge = langchainBridge();
  const host = createHost({ approval: bridge.approval, defaultDecision: 'allow', retainEvents: 1000 });
  await host.use(toolFs({ cwd: dir }));
  const model = fakeModel();
  return { model, agent: createAgent({ model, tools: bridge.tools(host, { include: ['read'] }), middleware: [bridge.middleware(host)] }) };
}

function wrappedAgent() {
  const bridge = langchainBridge({ parallelTools: ['read'] });
  const host = createHost({ approval: bridge.approval, defaultDecision: 'allow', retainEvents: 1000 });
  const model = fakeModel();
  return { model, agent: createAgent({ model, tools: [plainRead], middleware: [bridge.middleware(host)] }) };
}

async function time({ model, agent }) {
  queue(model, iterations);
  const start = performance.now();
  for (let i = 0; i < iterations; i++) {
    const result = await agent.invoke({ messages: [{ role: 'user', content: 'read it' }] });
    const answer = result.messages.at(-2);
    if (result.messages.at(-1)?.content !== 'done' || !String(answer?.content).includes('x'.repeat(79))) {
      throw new Error(`the conversation did not read the file: ${JSON.stringify(answer?.content).slice(0, 200)}`);
    }
  }
  return (performance.now() - start) / iterations;
}

try {
  const plain = plainAgent();
  const dsh = await dshAgent();
  const wrapped = wrappedAgent();
  // Warm every path, then alternate in short rounds so load drifts hit all alike.
  for (const path of [plain, dsh, wrapped]) await time(path);
  const base = [];
  const withDsh = [];
  const withWrapped = [];
  // Each round starts with another path, so the garbage one path leaves is not always collected
  // while the same next one runs.
  const paths = [
    [base, () => time(plain)],
    [withDsh, () => time(dsh)],
    [withWrapped, () => time(wrapped)],
  ];
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < paths.length; k++) {
      const [times, run] = paths[(k + r) % paths.length];
      times.push(await run());
    }
  }
  // Each round measures the paths back to back, so a ratio within a round sees one machine load; the median round counts.
  const ratio = (xs) => median(xs.map((x, r) => x / base[r]));
  console.log(`  createAgent + LangChain tool reading with fs.readFile  ${median(base).toFixed(3)} ms/conversation  (baseline)`);
  console.log(`  createAgent + dsh middleware, tool-fs read            ${median(withDsh).toFixed(3)} ms/conversation`);
  console.log(`  createAgent + dsh middleware, the same LangChain tool ${median(withWrapped).toFixed(3)} ms/conversation`);
  recordRatio({
    pkg: 'langchain',
    label: 'createAgent, one 4 KB read: dsh middleware + tool-fs read vs LangChain tool with fs.readFile',
    ratio: ratio(withDsh),
    target: 1.1,
  });
  recordRatio({
    pkg: 'langchain',
    label: 'createAgent, one 4 KB read: the same LangChain tool through the dsh middleware vs without',
    ratio: ratio(withWrapped),
    target: 1.1,
  });
} finally {
  await rm(dir, { recursive: true, force: true });
}
