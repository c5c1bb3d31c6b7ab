// Benchmark of the OpenAI Agents bridge, printed as a ratio against a baseline measured in the same run. Never fails.
//   One SDK run (Runner.run with a scripted model: one tool call, then a final text) whose tool reads a 4 KB
//   file: through the bridge (dsh pipeline, tool-fs `read`) against the SDK's own function tool reading the
//   same file with fs.readFile. Target: at most 1.1x (see the README: tool-fs's read alone costs more than that).
//   The bridge's own cost: the same bridged run against an SDK tool whose execute calls host.runStep itself
//   (the pipeline and tool-fs in both, only the bridge's needsApproval/invoke plumbing differs). Target: at most 1.1x.

import { mkdtempSync, realpathSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost } from '@deepseek-ai/dsh-core';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { Agent, Runner, tool, Usage } from '@openai/agents-core';
import { recordRatio } from '../../../scripts/bench/report.mjs';
import { openaiAgents } from '../dist/index.js';

const runs = 200;
const warmup = 30;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const us = (x) => `${(x * 1000).toFixed(0)} µs`;

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-openai-agents-bench-')));
const file = join(dir, 'four-k.txt');
await writeFile(file, `${'the quick brown fox jumps over the lazy dog\n'.repeat(95)}`.slice(0, 4096));

let calls = 0;
/** The SDK's Model interface: a tool call when the last input is the user's, else the final text. */
function scriptedModel(toolName, args) {
  return {
    async getResponse(request) {
      const input = Array.isArray(request.input) ? request.input : [];
      const last = input[input.length - 1];
      if (last?.type === 'function_call_result') {
        return {
          usage: new Usage(),
          output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done' }] }],
        };
      }
      calls += 1;
      return {
        usage: new Usage(),
        output: [{ type: 'function_call', callId: `call_${calls}`, name: toolName, arguments: JSON.stringify(args), status: 'completed' }],
      };
    },
    // biome-ignore lint/correctness/useYield: not streamed here.
    async *getStreamedResponse() {
      throw new Error('not streamed');
    },
  };
}

const bridge = openaiAgents();
const host = createHost({ approval: bridge.approval, defaultDecision: 'allow', retainEvents: 1000 });
await host.use(toolFs({ cwd: dir }));
const viaDsh = new Agent({
  name: 'dsh',
  model: scriptedModel('read', { file_path: 'four-k.txt' }),
  tools: bridge.tools(host, { names: ['read'] }),
});

const plainRead = tool({
  name: 'read_file',
  description: 'Reads a file.',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: true },
  strict: false,
  execute: async (input) => readFile(join(dir, input.path), 'utf8'),
});
let direct = 0;
const runStepTool = tool({
  name: 'read_direct',
  description: 'Reads a file through host.runStep.',
  parameters: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'], additionalProperties: true },
  strict: false,
  execute: async (input) => {
    direct += 1;
    const step = await host.runStep({ calls: [{ id: `direct_${direct}`, name: 'read', args: input }] });
    return JSON.stringify(step.results[0]?.outcome);
  },
});
const viaRunStep = new Agent({ name: 'runstep', model: scriptedModel('read_direct', { file_path: 'four-k.txt' }), tools: [runStepTool] });
const plain = new Agent({ name: 'plain', model: scriptedModel('read_file', { path: 'four-k.txt' }), tools: [plainRead] });
const runner = new Runner({ tracingDisabled: true });

async function once(agent) {
  const result = await runner.run(agent, 'read it');
  if (result.finalOutput !== 'done') throw new Error(`unexpected run result: ${String(result.finalOutput)}`);
}

const agents = [plain, viaDsh, viaRunStep];
for (let i = 0; i < warmup; i += 1) for (const agent of agents) await once(agent);
const times = agents.map(() => []);
for (let i = 0; i < runs; i += 1) {
  // Alternate the two within each round so machine load hits them alike.
  for (const [j, agent] of agents.entries()) {
    const start = performance.now();
    await once(agent);
    times[j].push(performance.now() - start);
  }
}
const [bare, dsh, runStep] = times.map(median);
const bad = host.events.list().filter((e) => e.type === 'tool/result' && e.data.outcome.status !== 'ok');
if (bad.length > 0) throw new Error(`a bench read failed: ${JSON.stringify(bad[0])}`);

console.log(`openai-agents bench: one SDK run with one 4 KB read, median of ${runs} runs`);
console.log(`  SDK function tool with fs.readFile   ${us(bare)}  (baseline)`);
console.log(`  bridged tool-fs read (dsh pipeline)  ${us(dsh)}`);
console.log(`  SDK tool calling host.runStep read   ${us(runStep)}`);
recordRatio({
  pkg: 'openai-agents',
  label: 'SDK run with a 4 KB read through dsh vs the SDK tool with fs.readFile',
  ratio: dsh / bare,
  target: 1.1,
});
recordRatio({
  pkg: 'openai-agents',
  label: "the bridge's own cost: bridged read vs an SDK tool calling host.runStep",
  ratio: dsh / runStep,
  target: 1.1,
});
await host.close();
