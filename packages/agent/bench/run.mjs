// Prints how much of an agent session the loop itself costs, and how the
// adapters' history conversion compares with a JSON.stringify of the same
// history. Ratios only, measured against baselines in this same run; never fails.
// Run after building: `npx tsc -p tsconfig.json && node bench/run.mjs`.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createHost } from '@deepseek-ai/dsh-core';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import OpenAI from 'openai';
import { anthropicMessagesOf } from '../dist/adapters/anthropic.js';
import { geminiContents } from '../dist/adapters/gemini.js';
import { chatMessages, openaiChat } from '../dist/adapters/openai-chat.js';
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

async function session(dir) {
  const script = [];
  for (let t = 0; t < TURNS; t++) {
    script.push({
      reasoning: `turn ${t}`,
      calls: Array.from({ length: CALLS }, (_, i) => ({ name: 'read', args: JSON.stringify({ file_path: `f${i}.txt` }) })),
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
  await host.use(toolFs({ roots: [dir], cwd: dir }));
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
  const inner = openaiChat({ client, model: 'bench' });
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

const dir = await mkdtemp(join(tmpdir(), 'dsh-agent-bench-'));
try {
  for (let i = 0; i < CALLS; i++) await writeFile(join(dir, `f${i}.txt`), `file ${i}\n`.repeat(50));
  await session(dir); // warm-up: JIT and module loading are not the loop's cost
  const runs = [];
  for (let s = 0; s < SESSIONS; s++) runs.push(await session(dir));
  const pick = runs.map((r) => r.loop / r.total);
  const mid = runs[pick.indexOf(median(pick))];
  console.log(`session: ${TURNS} turns x ${CALLS} calls, median of ${SESSIONS} sessions`);
  const pct = (x) => `${((x / mid.total) * 100).toFixed(2)}%`;
  console.log(
    `  total ${mid.total.toFixed(1)} ms = http ${mid.http.toFixed(1)} + tool bodies ${mid.bodies.toFixed(1)} + SDK client ${mid.sdk.toFixed(1)} + loop ${mid.loop.toFixed(1)} ms`,
  );
  console.log(`  loop share of session time (runAgent, pipeline around the bodies, events): ${pct(mid.loop)} (target <= 5%)`);
  console.log(`    of which the pipeline (host.runStep around the bodies) ${pct(mid.pipeline)}, runAgent itself ${pct(mid.runAgent)}`);
  console.log(`  loop + SDK client share (everything but the socket round trip and the bodies): ${pct(mid.loop + mid.sdk)}`);

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
    console.log(`  ${name.padEnd(17)} ${ratio.toFixed(2)}x JSON.stringify (target <= 2x); with the wire stringify ${wire.toFixed(2)}x`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
