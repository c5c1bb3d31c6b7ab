#!/usr/bin/env node
// Runs one test file N times in a row and counts its verdicts, to find a test whose verdict depends
// on timing, load or luck before CI does. Usage (from the repository root or any folder in it):
//   pnpm test:repeat packages/code-mode/src/memory-flood.test.ts 20 [-t "name pattern"]
// Each run is a fresh `vitest run` in the file's package, so module state never carries over. Exits 1
// when any run failed, and prints the first lines of each failure.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const [file, countText = '10', ...vitestArgs] = process.argv.slice(2);
const runs = Number(countText);
if (file === undefined || !Number.isInteger(runs) || runs < 1) {
  console.error('usage: pnpm test:repeat <test file> [runs, default 10] [vitest options, e.g. -t "name"]');
  process.exit(2);
}
// pnpm runs root scripts in the root; INIT_CWD is where the person typed the command.
const path = resolve(process.env.INIT_CWD ?? process.cwd(), file);
if (!existsSync(path)) {
  console.error(`test:repeat: no such file: ${path}`);
  process.exit(2);
}
const packageDir = packageOf(path);
const target = relative(packageDir, path);

let failed = 0;
const started = Date.now();
for (let run = 1; run <= runs; run++) {
  const t0 = Date.now();
  const child = spawnSync('npx', ['vitest', 'run', target, ...vitestArgs], {
    cwd: packageDir,
    encoding: 'utf8',
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  const seconds = ((Date.now() - t0) / 1000).toFixed(1);
  const ok = child.status === 0;
  if (!ok) failed++;
  console.log(`run ${run}/${runs}: ${ok ? 'passed' : `FAILED (exit ${child.status ?? child.signal})`} in ${seconds} s`);
  if (!ok) console.log(indent(failureLines(`${child.stdout}\n${child.stderr}`)));
}
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
console.log(`${relative(process.cwd(), path)}: ${runs - failed} of ${runs} runs passed (${minutes} min)`);
process.exit(failed === 0 ? 0 : 1);

function packageOf(start) {
  for (let dir = dirname(start); dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
  }
  throw new Error(`test:repeat: ${start} is in no package`);
}

/** The lines that say what failed: vitest's FAIL and assertion lines, at most 20. */
function failureLines(output) {
  const lines = output.split('\n').filter((line) => /FAIL|Error|expected|received|✗|×|timed out/i.test(line));
  return (lines.length > 0 ? lines : output.split('\n').slice(-20)).slice(0, 20).join('\n');
}

function indent(text) {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
