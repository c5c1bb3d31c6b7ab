// Prints how much of an agent session of no-op tools the loop itself costs, and how the
// adapters' history conversion compares with a JSON.stringify of the same history.
// Ratios only, measured against baselines in this same run, recorded with recordRatio.
// Run after building: `npx tsc -p tsconfig.json && node bench/run.mjs`.
import { performance } from 'node:perf_hooks';
import { createHost, defineTool, z } from '@deepseek-ai/dsh-core';
import OpenAI from 'openai';
import { recordRatio } from '../../../scripts/bench/report.mjs';
import { anthropicMessagesOf } from '../dist/adapters/anthropic.js';
import { geminiContents } from '../dist/adapters/gemini.js';
import { chatMessages, openaiChatModel } from '../dist/adapters/openai-chat.js';
import { responsesInput } from '../dist/adapters/openai-responses.js';
import { runAgent } from '../dist/index.js';
import { startOpenAIChatServer } from '../dist/testing/openai-chat-server.js';

const TURNS = 20;
const CALLS = 3;
const SESSIONS = 7;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function session() {
  const script = [];
  for (let t = 0; t < TURNS; t++) {
    script.push({
      reasoning: `turn ${t}`,
      calls: Array.from({ length: CALLS }, (_, i) => ({ name: 'noop', args: JSON.stringify({ n: i }) })),
    });
  }
  script.push({ text: 'done' });
  const server = await startOpenAIChatServer(script);
  let http = 0;
  // The HTTP round trip: from the request leaving to the response body read, fake server included.
  const timedFetch = async (url, init) => {
    const start = performance.now();
    const response = await fetch(url, init);
    const body = await response.arrayBuffer();
    http += performance.now() - start;
    return new Response(body, { status: response.status, headers: response.headers });
  };
  const client = new OpenAI({ apiKey: 'bench', baseURL: server.url, maxRetries: 0, fetch: timedFetch });
  const host = createHost({ defaultDecision: 'allow' });
  // A tool that does nothing: what is left of the session is the loop, the pipeline, the SDK and HTTP.
  host.tools.register(
    defineTool({ name: 'noop', description: 'Does nothing', input: z.object({ n: z.number() }), parallel: true, execute: () => 'ok' }),
  );
  // Wall time while at least one body runs: parallel bodies overlap and count once.
  let bodies = 0;
  let running = 0;
  let since = 0;
  host.hooks.execute.tap('bench/body-time', async (_ctx, next) => {
    if (running++ === 0) since = performance.now();
    try {
      return await next();
    } finally {
      if (--running === 0) bodies += performance.now() - since;
    }
  });
  const inner = openaiChatModel({ client, model: 'bench' });
  let modelTime = 0;
  const model = async (request, options) => {
    const start = performance.now();
    try {
      return await inner(request, options);
    } finally {
      modelTime += performance.now() - start;
    }
  };
  // The pipeline's share: runStep's wall time minus the bodies inside it.
  let steps = 0;
  const timedHost = {
    ...host,
    runStep: async (step, options) => {
      const begin = performance.now();
      try {
        return await host.runStep(step, options);
      } finally {
        steps += performance.now() - begin;
      }
    },
  };
  const start = performance.now();
  const result = await runAgent({ host: timedHost, model, messages: [{ role: 'user', text: 'go' }] });
  const total = performance.now() - start;
  await server.close();
  if (result.stop !== 'end' || server.problems.length > 0) throw new Error(`the session failed: ${result.stop} ${server.problems}`);
  // The SDK's own work: building and serialising the request, parsing the answer (and our conversion, timed below).
  const sdk = modelTime - http;
  const loop = total - http - bodies - sdk;
  return { total, http, bodies, sdk, loop, pipeline: steps - bodies, runAgent: loop - (steps - bodies) };
}

/**
 * runAgent's own time, with no HTTP and no SDK in the way: the same session played by a model
 * function that returns prebuilt turns. What is left after the model calls and host.runStep is
 * the loop's own work (history, events, tool narrowing, retries' bookkeeping, beforeRequest).
 */
async function loopOnly() {
  const turns = [];
  for (let t = 0; t < TURNS; t++) {
    turns.push({
      text: '',
      stop: 'tool-use',
      calls: Array.from({ length: CALLS }, (_, i) => ({ id: `c${t}_${i}`, name: 'noop', args: JSON.stringify({ n: i }) })),
      usage: { inputTokens: 100, outputTokens: 7 },
      provider: { adapter: 'openai-chat', data: { reasoning_content: `turn ${t}` } },
    });
  }
  turns.push({ text: 'done', calls: [], stop: 'end' });
  const host = createHost({ defaultDecision: 'allow' });
  host.tools.register(
    defineTool({ name: 'noop', description: 'Does nothing', input: z.object({ n: z.number() }), parallel: true, execute: () => 'ok' }),
  );
  let n = 0;
  let modelTime = 0;
  const model = async () => {
    const start = performance.now();
    const turn = turns[n++];
    modelTime += performance.now() - start;
    return turn;
  };
  let steps = 0;
  const timedHost = {
    ...host,
    runStep: async (step, options) => {
      const begin = performance.now();
      try {
        return await host.runStep(step, options);
      } finally {
        steps += performance.now() - begin;
      }
    },
  };
  const start = performance.now();
  const result = await runAgent({ host: timedHost, model, messages: [{ role: 'user', text: 'go' }] });
  const total = performance.now() - start;
  if (result.stop !== 'end') throw new Error(`the loop-only session failed: ${result.stop}`);
  return total - steps - modelTime;
}

function history(size) {
  const messages = [{ role: 'user', text: 'Refactor the parser and keep the tests green.' }];
  let n = 0;
  while (messages.length < size) {
    const calls = Array.from({ length: CALLS }, (_, i) => ({
      id: `call_${n}_${i}`,
      name: 'read',
      args: JSON.stringify({ file_path: `src/module-${n}-${i}.ts`, offset: 1, limit: 200 }),
    }));
    messages.push({
      role: 'assistant',
      text: `Step ${n}: reading the next three files to see how the parser is used.`,
      calls,
      stop: 'tool-use',
      usage: { inputTokens: 1000 + n, outputTokens: 50 },
      provider: { adapter: 'openai-chat', data: { reasoning_content: `I should look at module ${n} next. `.repeat(4) } },
    });
    messages.push({
      role: 'tool',
      results: calls.map((c) => ({
        id: c.id,
        name: 'read',
        status: 'ok',
        content: `1\texport function f${n}() {\n2\t  return ${n};\n3\t}\n`.repeat(20),
        isError: false,
      })),
    });
    n += 1;
  }
  return messages.slice(0, size);
}

function timeOf(fn, rounds) {
  for (let i = 0; i < 50; i++) fn();
  const samples = [];
  for (let r = 0; r < rounds; r++) {
    const start = performance.now();
    for (let i = 0; i < 20; i++) fn();
    samples.push((performance.now() - start) / 20);
  }
  return median(samples);
}

await session(); // warm-up: JIT and module loading are not the loop's cost
const runs = [];
for (let s = 0; s < SESSIONS; s++) runs.push(await session());
const pick = runs.map((r) => r.runAgent / r.total);
const mid = runs[pick.indexOf(median(pick))];
console.log(`session: ${TURNS} turns x ${CALLS} no-op calls, median of ${SESSIONS} sessions`);
const pct = (x) => `${((x / mid.total) * 100).toFixed(2)}%`;
console.log(
  `  total ${mid.total.toFixed(1)} ms = http ${mid.http.toFixed(1)} + tool bodies ${mid.bodies.toFixed(1)} + SDK client ${mid.sdk.toFixed(1)} + loop ${mid.loop.toFixed(1)} ms`,
);
console.log(`  of the loop: the pipeline (host.runStep around the bodies) ${pct(mid.pipeline)}, runAgent itself ${pct(mid.runAgent)}`);
// The loop's own cost: runAgent's work measured without HTTP or SDK, against the whole HTTP session.
await loopOnly();
const own = [];
for (let s = 0; s < SESSIONS * 3; s++) own.push(await loopOnly());
const sessionTotal = median(runs.map((r) => r.total));
console.log(`  runAgent's own work, played without HTTP or SDK: ${median(own).toFixed(2)} ms a session (median of ${own.length})`);
recordRatio({ pkg: 'agent', label: "runAgent's own cost vs a no-op-tool session", ratio: median(own) / sessionTotal, target: 0.02 });
// The residual above (session minus HTTP, bodies, SDK and pipeline) also holds event-loop hops and GC: printed, not a target.
console.log(`  residual share outside HTTP, bodies, SDK and pipeline: ${pct(mid.runAgent)} (includes scheduling and GC)`);

const messages = history(200);
const baseline = timeOf(() => JSON.stringify(messages), 30);
console.log(`history conversion, 200 messages (JSON.stringify baseline ${baseline.toFixed(3)} ms):`);
const adapters = {
  'openai-chat': () => chatMessages('system', messages),
  'openai-responses': () => responsesInput(messages),
  anthropic: () => anthropicMessagesOf(messages),
  gemini: () => geminiContents(messages),
};
for (const [name, convert] of Object.entries(adapters)) {
  const ratio = timeOf(convert, 30) / baseline;
  // What reaching the wire costs in all: the conversion, then the SDK's stringify of its result.
  const wire = timeOf(() => JSON.stringify(convert()), 30) / baseline;
  recordRatio({
    pkg: 'agent',
    label: `${name} history conversion vs JSON.stringify`,
    ratio,
    target: 2,
    note: `(with the wire stringify ${wire.toFixed(2)}x)`,
  });
}
