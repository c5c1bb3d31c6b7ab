#!/usr/bin/env node
// Core benchmarks. Every figure is a ratio against a baseline measured in this same run,
// so a slow or busy machine moves both sides together. Targets come from issue 2
// (per call: issue 30 item 1).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

if (typeof globalThis.gc !== 'function') {
  // Re-run with --expose-gc so the heap check can collect before measuring.
  const result = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  process.exit(result.status ?? 1);
}

const { perCall } = await import('./per-call.mjs');
const { finalisation } = await import('./finalisation.mjs');
const { scale } = await import('./scale.mjs');

// Each ratio is recorded (scripts/bench/report.mjs), which prints its ok/FAIL line.
const perCallOk = await perCall();
const finalisationOk = await finalisation();
const scaleOk = await scale();
process.exitCode = perCallOk && finalisationOk && scaleOk ? 0 : 1;
