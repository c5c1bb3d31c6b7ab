// `read`, `write` and `edit` of a 4 KB file through the pipeline, against tools
// whose bodies are bare `readFile` (and `writeFile`) through the same pipeline,
// and the thread-pool fs round trips each makes (counted with async_hooks).
// The bare write does not fsync; tool-fs does by default (durable writes by design), so it is also
// timed with `fsync: false`, and the floor of a durable write is measured in the same run: a bare tool
// that reads the file, writes a temp file, fsyncs it and renames it into place (tool-fs does not fsync
// the directory, so neither does the floor). Wall time: the fsync waits on the disk, not the CPU.
import { createHook } from 'node:async_hooks';
import { open, readFile, rename, writeFile } from 'node:fs/promises';
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
    let temps = 0;
    host.tools.register(
      defineTool({
        name: 'durable_write',
        description: 'readFile + temp file write + fsync + rename',
        input: z.object({ file_path: z.string(), content: z.string() }),
        execute: async (args) => {
          const before = await readFile(args.file_path, 'utf8');
          const temp = `${args.file_path}.${temps++}.tmp`;
          const handle = await open(temp, 'wx');
          try {
            await handle.writeFile(args.content);
            await handle.sync();
          } finally {
            await handle.close();
          }
          await rename(temp, args.file_path);
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

// The baseline call and the measured call alternate, each on its own file, and the ratio is the median of
// the per-pair ratios: a burst of load on this shared machine then slows both sides of a pair alike
// instead of skewing one median. Passes are repeated with more pairs until two agree (stable-ratio.mjs).
async function paired(base, ours) {
  let i = 0;
  let baseCalls = 0;
  let ourCalls = 0;
  const r = await stableRatio(
    async () => {
      const b = await once(base.host, base.name, base.args(i));
      baseCalls = b.calls;
      return b.ms;
    },
    async () => {
      const o = await once(ours.host, ours.name, ours.args(i));
      i += 1;
      ourCalls = o.calls;
      return o.ms;
    },
    { rounds, warmup, maxRounds: rounds * 16 },
  );
  return {
    bare: { ms: r.base, calls: baseCalls },
    tool: { ms: r.ours, calls: ourCalls },
    ratio: r.ratio,
    spread: r.spread,
    rounds: r.rounds,
  };
}

/** Prints the ratios; `base` is a scratch directory. */
export async function roundTripBench(base) {
  const bareFile = path.join(base, 'bare-4k.txt');
  const durableFile = path.join(base, 'durable-4k.txt');
  const file = path.join(base, 'four-k.txt');
  const lineA = `${'a'.repeat(63)}\n`;
  const contentA = `alpha\n${lineA.repeat(63)}`;
  const contentB = `omega\n${lineA.repeat(63)}`;
  await writeFile(bareFile, contentA);
  await writeFile(durableFile, contentA);
  await writeFile(file, contentA);
  const bareHost = await createTestHost({ plugins: [bare] });
  const fsHost = await createTestHost({ plugins: [toolFs({ roots: [base], cwd: base })] });
  const noFsyncHost = await createTestHost({ plugins: [toolFs({ roots: [base], cwd: base, fsync: false })] });
  const content = (i) => (i % 2 ? contentB : contentA);
  const toggle = (i) => (i % 2 ? { old_string: 'omega', new_string: 'alpha' } : { old_string: 'alpha', new_string: 'omega' });
  const bareRead = { host: bareHost, name: 'bare_read', args: () => ({ file_path: bareFile }) };
  const bareWrite = { host: bareHost, name: 'bare_write', args: (i) => ({ file_path: bareFile, content: content(i) }) };
  const durable = { host: bareHost, name: 'durable_write', args: (i) => ({ file_path: durableFile, content: content(i) }) };
  const write = (host) => ({ host, name: 'write', args: (i) => ({ file_path: file, content: content(i) }) });
  const edit = (host) => ({ host, name: 'edit', args: (i) => ({ file_path: file, ...toggle(i) }) });
  const fresh = async (host) => {
    await writeFile(file, contentA);
    await host.call('read', { file_path: file });
  };
  const rows = [];
  rows.push({
    label: 'read',
    against: 'readFile',
    r: await paired(bareRead, { host: fsHost, name: 'read', args: () => ({ file_path: file }) }),
  });
  // The floor of a durable write against the bare one: what fsync and a rename cost on this disk, now.
  const floor = await paired(bareWrite, durable);
  for (const [label, host, tool] of [
    ['write', fsHost, write],
    ['edit', fsHost, edit],
  ]) {
    await fresh(host);
    const r = await paired(bareWrite, tool(host));
    await fresh(host);
    const toFloor = await paired(durable, tool(host));
    rows.push({ label, against: 'readFile + writeFile', r, floor });
    rows.push({ label, against: 'durable write', r: toFloor, target: 1.3 });
  }
  for (const [label, tool] of [
    ['write (fsync: false)', write],
    ['edit (fsync: false)', edit],
  ]) {
    await fresh(noFsyncHost);
    rows.push({ label, against: 'readFile + writeFile', r: await paired(bareWrite, tool(noFsyncHost)) });
  }
  const ms = (r) => `${r.ms.toFixed(3).padStart(7)} ms ${String(r.calls).padStart(3)} fs round trips`;
  console.log('round trips: a 4 KB file through the pipeline, against a bare-body tool (wall time, median of per-pair ratios)');
  console.log(
    `  the durable write floor (readFile + temp file + fsync + rename): ${floor.ratio.toFixed(2)}x the bare readFile + writeFile`,
  );
  for (const { label, against, r, floor: f, target = 2 } of rows) {
    console.log(`  ${`tool-fs ${label}`.padEnd(30)} ${ms(r.tool)}   bare ${against.padEnd(20)} ${ms(r.bare)}   ${r.ratio.toFixed(2)}x`);
    recordRatio({
      pkg: 'tool-fs',
      label: `${label} of a 4 KB file vs a bare ${against === 'durable write' ? 'durable write (readFile + temp file + fsync + rename)' : against} tool`,
      ratio: r.ratio,
      target,
      spread: r.spread,
      rounds: r.rounds,
      ...(f === undefined ? {} : { floor: { value: f.ratio, what: 'readFile + temp file + fsync + rename in a bare tool' } }),
    });
  }
}
