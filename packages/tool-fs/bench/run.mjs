// Benchmarks of tool-fs, printed as ratios against baselines measured in the same run.
//   grep: a literal over a generated tree of 10,000 files, against GNU `grep -rn` (and ripgrep when present).
//   read: `limit: 2000` on files of growing size, in a fresh process each: time and peak RSS should not grow.
//   round trips: `read`, `write`, `edit` of a 4 KB file against bare readFile (+ writeFile) tools (target <= 2x),
//   and `write`, `edit` against the floor of a durable write (readFile + temp file + fsync + rename);
//   stages: where the time of that `write` and `edit` goes, stage by stage.
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, fsyncSync, mkdirSync, mkdtempSync, openSync, realpathSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { toolFs } from '../dist/index.js';
import { roundTripBench } from './round-trips.mjs';
import { stageBench } from './stages.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const runs = 7;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const hasRipgrep = (() => {
  try {
    return execFileSync('rg', ['--version']).toString().startsWith('ripgrep');
  } catch {
    return false;
  }
})();

function timeProcess(command, args) {
  const times = [];
  for (let i = 0; i < runs; i += 1) {
    const start = performance.now();
    const r = spawnSync(command, args, { maxBuffer: 1 << 28 });
    if (r.status !== 0 && r.status !== 1) throw new Error(`${command} failed: ${r.stderr}`);
    times.push(performance.now() - start);
  }
  return median(times);
}

async function timeTool(t, args) {
  const times = [];
  for (let i = 0; i < runs; i += 1) {
    const start = performance.now();
    const outcome = await t.call('grep', args);
    if (outcome.status !== 'ok') throw new Error(JSON.stringify(outcome));
    times.push(performance.now() - start);
  }
  return median(times);
}

async function grepBench(base) {
  const tree = path.join(base, 'tree');
  for (let d = 0; d < 100; d += 1) {
    mkdirSync(path.join(tree, `d${d}`, 'sub'), { recursive: true });
    for (let f = 0; f < 100; f += 1) {
      const lines = [];
      for (let l = 0; l < 60; l += 1) lines.push(`const value_${d}_${f}_${l} = compute(${l}, "lorem ipsum dolor sit amet");`);
      if (f % 37 === 0) lines.push('// NEEDLE_marker here');
      writeFileSync(path.join(tree, `d${d}`, f % 2 ? 'sub' : '', `f${f}.ts`), `${lines.join('\n')}\n`);
    }
  }
  const args = { pattern: 'NEEDLE_marker', output_mode: 'content', max_results: 100_000 };
  const grep = timeProcess('grep', ['-rn', 'NEEDLE_marker', tree]);
  const rg = hasRipgrep ? timeProcess('rg', ['-n', 'NEEDLE_marker', tree]) : undefined;
  const builtin = await timeTool(await createTestHost({ plugins: [toolFs({ roots: [tree], cwd: tree, search: 'builtin' })] }), args);
  const withRg = hasRipgrep
    ? await timeTool(await createTestHost({ plugins: [toolFs({ roots: [tree], cwd: tree, search: 'ripgrep' })] }), args)
    : undefined;
  console.log('grep: a literal over 10,000 files (median of %d, ms; ratio to GNU grep -rn)', runs);
  console.log(`  GNU grep -rn            ${grep.toFixed(1).padStart(8)}   1.00x`);
  if (rg !== undefined) console.log(`  ripgrep -n              ${rg.toFixed(1).padStart(8)}   ${(rg / grep).toFixed(2)}x`);
  console.log(`  tool-fs grep (built-in) ${builtin.toFixed(1).padStart(8)}   ${(builtin / grep).toFixed(2)}x`);
  if (withRg !== undefined) console.log(`  tool-fs grep (ripgrep)  ${withRg.toFixed(1).padStart(8)}   ${(withRg / grep).toFixed(2)}x`);
}

function readBench(base) {
  const sizes = [25, 100, 400];
  const line = `${'x'.repeat(99)}\n`;
  const block = Buffer.from(line.repeat(10_486));
  const results = [];
  for (const mb of sizes) {
    const file = path.join(base, `read-${mb}.txt`);
    const fd = openSync(file, 'w');
    let written = 0;
    while (written < mb * 1024 * 1024) written += writeSync(fd, block);
    // Flushed first, so background writeback does not land inside the timed reads.
    fsyncSync(fd);
    closeSync(fd);
    const times = [];
    const rss = [];
    for (let i = 0; i < 3; i += 1) {
      const r = spawnSync(process.execPath, [path.join(here, 'read-once.mjs'), base, file], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(r.stderr);
      const { ms, maxRssKb } = JSON.parse(r.stdout);
      times.push(ms);
      rss.push(maxRssKb);
    }
    results.push({ mb, ms: median(times), rssMb: median(rss) / 1024 });
    rmSync(file);
  }
  const first = results[0];
  console.log('read: limit 2000 (fresh process each, median of 3; ratios to the %d MB file)', first.mb);
  for (const r of results) {
    console.log(
      `  ${String(r.mb).padStart(4)} MB  ${r.ms.toFixed(1).padStart(7)} ms  ${(r.ms / first.ms).toFixed(2)}x   peak RSS ${r.rssMb.toFixed(0).padStart(4)} MB  ${(r.rssMb / first.rssMb).toFixed(2)}x`,
    );
  }
}

const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'dsh-tool-fs-bench-')));
try {
  await roundTripBench(base);
  await stageBench(base);
  await grepBench(base);
  readBench(base);
} finally {
  rmSync(base, { recursive: true, force: true });
}
