// `read`, `write` and `edit` of a 4 KB file through the pipeline, against tools
// whose bodies are bare `readFile` (and `writeFile`) through the same pipeline,
// and the thread-pool fs round trips each makes (counted with async_hooks).
// The bare write does not fsync; tool-fs does by default, so it is also timed with `fsync: false`.
import { createHook } from 'node:async_hooks';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { definePlugin, defineTool, z } from '@deepseek-ai/dsh-core';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { recordRatio } from '../../../scripts/bench/report.mjs';
import { stableRatio } from '../../../scripts/bench/stable-ratio.mjs';
import { toolFs } from '../dist/index.js';

const rounds = 200;
const warmup = 50;

let fsCalls = 0;
createHook({
  init(_id, type) {
    if (type === 'FSREQCALLBACK' || type === 'FSREQPROMISE') fsCalls += 1;
  },
}).enable();

const filePath = z.object({ file_path: z.string() });
const bare = definePlugin({
  name: 'bare-fs',
  version: '0.0.0',
  register(host) {
    host.tools.register(
      defineTool({
        name: 'bare_read',
        description: 'readFile',
        input: filePath,
        parallel: true,
        execute: async (args) => ({ length: (await readFile(args.file_path, 'utf8')).length }),
      }),
    );
    host.tools.register(
      defineTool({
        name: 'bare_write',
        description: 'readFile + writeFile',
        input: z.object({ file_path: z.string(), content: z.string() }),
        execute: async (args) => {
          const before = await readFile(args.file_path, 'utf8');
          await writeFile(args.file_path, args.content);
          return { before: before.length };
        },
      }),
    );
  },
});

async function once(t, name, args) {
  const fsBefore = fsCalls;
  const start = performance.now();
  const outcome = await t.call(name, args);
  const ms = performance.now() - start;
  if (outcome.status !== 'ok') throw new Error(`${name}: ${JSON.stringify(outcome)}`);
  return { ms, calls: fsCalls - fsBefore };
}

// The bare call and the tool-fs call alternate, each on its own file, and the ratio is the median of
// the per-pair ratios: a burst of load on this shared machine then slows both sides of a pair alike
// instead of skewing one median. Passes are repeated with more pairs until two agree (stable-ratio.mjs).
async function paired(t, bareName, bareArgs, name, args) {
  let i = 0;
  let bareCalls = 0;
  let toolCalls = 0;
  const r = await stableRatio(
    async () => {
      const b = await once(t.bare, bareName, bareArgs(i));
      bareCalls = b.calls;
      return b.ms;
    },
    async () => {
      const f = await once(t.fs, name, args(i));
      i += 1;
      toolCalls = f.calls;
      return f.ms;
    },
    { rounds, warmup, maxRounds: rounds * 8 },
  );
  return {
    bare: { ms: r.base, calls: bareCalls },
    tool: { ms: r.ours, calls: toolCalls },
    ratio: r.ratio,
    spread: r.spread,
    rounds: r.rounds,
  };
}

/** Prints the ratios; `base` is a scratch directory. */
export async function roundTripBench(base) {
  const bareFile = path.join(base, 'bare-4k.txt');
  const file = path.join(base, 'four-k.txt');
  const lineA = `${'a'.repeat(63)}\n`;
  const contentA = `alpha\n${lineA.repeat(63)}`;
  const contentB = `omega\n${lineA.repeat(63)}`;
  await writeFile(bareFile, contentA);
  await writeFile(file, contentA);
  const bareHost = await createTestHost({ plugins: [bare] });
  const withFsync = { bare: bareHost, fs: await createTestHost({ plugins: [toolFs({ roots: [base], cwd: base })] }) };
  const noFsync = { bare: bareHost, fs: await createTestHost({ plugins: [toolFs({ roots: [base], cwd: base, fsync: false })] }) };
  const content = (i) => (i % 2 ? contentB : contentA);
  const toggle = (i) => (i % 2 ? { old_string: 'omega', new_string: 'alpha' } : { old_string: 'alpha', new_string: 'omega' });
  const bareRead = () => ({ file_path: bareFile });
  const bareWrite = (i) => ({ file_path: bareFile, content: content(i) });
  const fresh = async (t) => {
    await writeFile(file, contentA);
    await t.fs.call('read', { file_path: file });
  };
  const results = [];
  results.push(['read', await paired(withFsync, 'bare_read', bareRead, 'read', () => ({ file_path: file }))]);
  await fresh(withFsync);
  results.push(['write', await paired(withFsync, 'bare_write', bareWrite, 'write', (i) => ({ file_path: file, content: content(i) }))]);
  await fresh(withFsync);
  results.push(['edit', await paired(withFsync, 'bare_write', bareWrite, 'edit', (i) => ({ file_path: file, ...toggle(i) }))]);
  await fresh(noFsync);
  results.push([
    'write (fsync: false)',
    await paired(noFsync, 'bare_write', bareWrite, 'write', (i) => ({ file_path: file, content: content(i) })),
  ]);
  await fresh(noFsync);
  results.push(['edit (fsync: false)', await paired(noFsync, 'bare_write', bareWrite, 'edit', (i) => ({ file_path: file, ...toggle(i) }))]);
  const ms = (r) => `${r.ms.toFixed(3).padStart(7)} ms ${String(r.calls).padStart(3)} fs round trips`;
  console.log('round trips: a 4 KB file through the pipeline, against a bare-body tool (median of per-pair ratios; target <= 2x)');
  for (const [label, r] of results) {
    const against = label === 'read' ? 'readFile' : 'readFile + writeFile';
    console.log(`  ${`tool-fs ${label}`.padEnd(30)} ${ms(r.tool)}   bare ${against.padEnd(20)} ${ms(r.bare)}   ${r.ratio.toFixed(2)}x`);
    recordRatio({
      pkg: 'tool-fs',
      label: `${label} of a 4 KB file vs a bare ${against} tool`,
      ratio: r.ratio,
      target: 2,
      spread: r.spread,
      rounds: r.rounds,
    });
  }
}
