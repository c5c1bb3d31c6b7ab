// Benchmark of the LangChain bridge, printed as ratios against a baseline measured in the same run. Never fails.
// One createAgent conversation with LangChain's own fake model: one `read` of a 4 KB file, then a final text.
//   baseline: a LangChain tool() whose body reads the file with fs.readFile, no middleware;
//   dsh:      bridge.tools() with tool-fs's `read` and bridge.middleware() (every pipeline stage,
//             the session log in memory);
//   fs-floor: a LangChain tool() whose body runs tool-fs's `read` through host.runStep itself, no
//             middleware (dsh's path without the bridge: what core and
//             tool-fs cost over fs.readFile);
//   wrapped:  the baseline's own LangChain tool, run through the pipeline by the middleware (what the
//             bridge and core add to a call, without tool-fs's own work);
//   pass:     the baseline with a pass-through middleware of the same two hooks (wrapToolCall,
//             wrapModelCall) that only calls on: what LangChain itself charges for any middleware, the
//             floor of the wrapped ratio;
//   fs-floor + pass: fs-floor with that pass-through middleware: the floor of the dsh ratio (LangChain's
//             middleware machinery, core and tool-fs; what is left above it is the bridge's own).
// Each pair alternates in rounds until two passes agree (scripts/bench/stable-ratio.mjs). Time is the
// process's CPU time (all its threads): on a loaded machine wall time charges each await on the file
// system pool with the scheduler's delay, which tool-fs's extra file system calls multiply;
// DSH_BENCH_CLOCK=wall measures wall time instead. Targets: dsh 1.1x (its floor is fs-floor + pass), wrapped 1.1x (its floor
// is pass).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost, outcomeText, z } from '@deepseek-ai/dsh-core';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { AIMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { createAgent, createMiddleware } from 'langchain';
import { recordRatio } from '../../../scripts/bench/report.mjs';
import { stableRatio } from '../../../scripts/bench/stable-ratio.mjs';
import { langchainApprovals, langchainBridge } from '../dist/index.js';

/** Conversations per measurement; a round measures each side once. */
const iterations = 10;
const wall = process.env.DSH_BENCH_CLOCK === 'wall';

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
  const approvals = langchainApprovals();
  const host = createHost({ approval: approvals.provider, defaultDecision: 'allow', retainEvents: 1000 });
  await host.use(toolFs({ cwd: dir }));
  const bridge = langchainBridge(host, { approvals });
  const model = fakeModel();
  return { model, agent: createAgent({ model, tools: bridge.tools({ include: ['read'] }), middleware: [bridge.middleware()] }) };
}

/** A middleware with the bridge's two hooks that does nothing but call on. */
const passThrough = () =>
  createMiddleware({
    name: 'pass',
    wrapToolCall: (request, handler) => handler(request),
    wrapModelCall: (request, handler) => handler(request),
  });

function passAgent() {
  const model = fakeModel();
  return { model, agent: createAgent({ model, tools: [plainRead], middleware: [passThrough()] }) };
}

async function fsFloorAgent(middleware = []) {
  const host = createHost({ defaultDecision: 'allow', retainEvents: 1000 });
  await host.use(toolFs({ cwd: dir }));
  let ids = 0;
  const read = tool(
    async (args) => {
      const step = await host.runStep({ calls: [{ id: `fs-floor-${ids++}`, name: 'read', args }] });
      const outcome = step.results[0]?.outcome;
      return outcome === undefined ? 'no result' : outcomeText(outcome);
    },
    { name: 'read', description: 'read a file', schema: z.object({ file_path: z.string() }) },
  );
  const model = fakeModel();
  return { model, agent: createAgent({ model, tools: [read], middleware }) };
}

function wrappedAgent() {
  const approvals = langchainApprovals();
  const host = createHost({ approval: approvals.provider, defaultDecision: 'allow', retainEvents: 1000 });
  const bridge = langchainBridge(host, { approvals, parallelTools: ['read'] });
  const model = fakeModel();
  return { model, agent: createAgent({ model, tools: [plainRead], middleware: [bridge.middleware()] }) };
}

/** Now in ms: the process's CPU time (every thread), or wall time with DSH_BENCH_CLOCK=wall. */
function now() {
  if (wall) return performance.now();
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** ms per conversation of `iterations` conversations on one agent. */
async function time({ model, agent }) {
  queue(model, iterations);
  const start = now();
  for (let i = 0; i < iterations; i++) {
    const result = await agent.invoke({ messages: [{ role: 'user', content: 'read it' }] });
    const answer = result.messages.at(-2);
    if (result.messages.at(-1)?.content !== 'done' || !String(answer?.content).includes('x'.repeat(79))) {
      throw new Error(`the conversation did not read the file: ${JSON.stringify(answer?.content).slice(0, 200)}`);
    }
  }
  return (now() - start) / iterations;
}

/** `path` against `baseline` in alternated rounds until two passes agree. */
const measure = (baseline, path) =>
  stableRatio(
    () => time(baseline),
    () => time(path),
    { rounds: 9, warmup: 3, agree: 0.04, maxRounds: 36 },
  );

try {
  const plain = plainAgent();
  const dsh = await measure(plain, await dshAgent());
  const floor = await measure(plain, await fsFloorAgent());
  const wrapped = await measure(plain, wrappedAgent());
  const pass = await measure(plain, passAgent());
  const floorPass = await measure(plain, await fsFloorAgent([passThrough()]));
  const ms = (x) => `${x.toFixed(3)} ms/conversation`;
  const ratio = (r) => `${r.ratio.toFixed(2)}x (spread ${r.spread.toFixed(3)}, ${r.rounds} rounds)`;
  console.log(`langchain bench (${wall ? 'wall' : 'CPU'} time; alternated rounds until two passes agree)`);
  console.log(`  createAgent + LangChain tool reading with fs.readFile  ${ms(dsh.base)}  (baseline)`);
  console.log(`  createAgent + dsh middleware, tool-fs read            ${ms(dsh.ours)}  ${ratio(dsh)}`);
  console.log(`  createAgent + LangChain tool running tool-fs read     ${ms(floor.ours)}  ${ratio(floor)}: core + tool-fs`);
  console.log(`  createAgent + dsh middleware, the same LangChain tool ${ms(wrapped.ours)}  ${ratio(wrapped)}`);
  console.log(`  createAgent + a pass-through middleware, that tool    ${ms(pass.ours)}  ${ratio(pass)}: LangChain's own middleware cost`);
  console.log(
    `  createAgent + pass-through middleware, fs-floor tool  ${ms(floorPass.ours)}  ${ratio(floorPass)}: the floor of the dsh path`,
  );
  const share = (r, f) => `${((r.ours - f.ours) * 1000).toFixed(0)} µs/conversation (${(r.ours / f.ours).toFixed(2)}x its floor)`;
  console.log(`    the bridge's own share: dsh path ${share(dsh, floorPass)}; wrapped tool ${share(wrapped, pass)}`);
  recordRatio({
    pkg: 'langchain',
    label: 'createAgent, one 4 KB read: dsh middleware + tool-fs read vs LangChain tool with fs.readFile',
    ratio: dsh.ratio,
    target: 1.1,
    spread: dsh.spread,
    rounds: dsh.rounds,
    floor: {
      value: floorPass.ratio,
      what: "tool-fs read through host.runStep in a plain LangChain tool, with a pass-through middleware: LangChain's middleware, core and tool-fs",
    },
  });
  recordRatio({
    pkg: 'langchain',
    label: 'createAgent, one 4 KB read: the same LangChain tool through the dsh middleware vs without',
    ratio: wrapped.ratio,
    target: 1.1,
    spread: wrapped.spread,
    rounds: wrapped.rounds,
    floor: {
      value: pass.ratio,
      what: 'the same tool with a pass-through middleware of the same two hooks: what LangChain charges for any',
    },
  });
} finally {
  await rm(dir, { recursive: true, force: true });
}
