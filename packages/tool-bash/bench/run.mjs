#!/usr/bin/env node
// pnpm bench: the tool's overhead against raw spawns measured in the same run, and the memory of a
// 200 MB flood. Prints ratios; asserts nothing (the machine is shared and noisy).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordRatio } from '../../../scripts/bench/report.mjs';
import { bwrapArgs, bwrapSandbox } from '../dist/index.js';
import { median, raw, toolHost } from './common.mjs';
import { benchCpuShare } from './cpu-share.mjs';
import { benchNetwork } from './network.mjs';

const rounds = Number(process.env.BENCH_ROUNDS ?? 150);
const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-bash-bench-')));

async function time(fn) {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Alternates baseline and candidate so drift in machine load hits both alike. */
async function compare(label, baseline, candidate) {
  for (let i = 0; i < 5; i += 1) {
    await baseline();
    await candidate();
  }
  const a = [];
  const b = [];
  for (let i = 0; i < rounds; i += 1) {
    a.push(await time(baseline));
    b.push(await time(candidate));
  }
  const ratio = median(b) / median(a);
  console.log(
    `${label}: baseline median ${median(a).toFixed(1)} ms, tool median ${median(b).toFixed(1)} ms, ratio ${ratio.toFixed(2)}x (+${(median(b) - median(a)).toFixed(1)} ms)`,
  );
  return ratio;
}

try {
  console.log(`tool-bash bench (${rounds} rounds each, interleaved)`);
  const plain = await toolHost({ cwd, sandbox: { provider: 'none' } });
  const bare = await toolHost({ cwd }, true);
  // Issue 4's target: the tool on `true` against a raw child_process.spawn('bash', ['-c', 'true']).
  // With cgroups on (the default): a launcher prepared in the call's cgroup takes the migration off the call's path.
  const ratio = await compare(
    'bash -c true, no sandbox, the tool (cgroups on) through the pipeline vs a raw spawn',
    () => raw('bash', ['-c', 'true'], cwd),
    () => plain('true'),
  );
  recordRatio({ pkg: 'tool-bash', label: 'bash -c true, no sandbox, cgroups on, vs a raw spawn', ratio, target: 1.2 });
  // A cgroup per call (where this process can create one) costs the kernel's migration of the shell into it.
  const sweepOnly = await toolHost({ cwd, cgroups: false, sandbox: { provider: 'none' } });
  const sweepRatio = await compare(
    'bash -c true, no sandbox, cgroups: false (own PID namespace as root, else process group + marker sweep) vs a raw spawn',
    () => raw('bash', ['-c', 'true'], cwd),
    () => sweepOnly('true'),
  );
  recordRatio({ pkg: 'tool-bash', label: 'bash -c true, no sandbox, cgroups off, vs a raw spawn', ratio: sweepRatio, target: 1.2 });
  await compare(
    'bash -c true, no sandbox, both through the pipeline (the tool vs a bare-spawn tool), for reference',
    bare.bind(null, 'true'),
    () => plain('true'),
  );

  const policy = { writableRoots: [cwd], readOnlyPaths: [join(cwd, '.git')], extraReadablePaths: [], network: false, cwd };
  const probe = await bwrapSandbox().probe(policy);
  if (probe.ok) {
    // The baseline is the bare profile, without the seccomp filter, the masks or a process limit: the ratios show what those cost.
    const bare = () => raw('bwrap', [...bwrapArgs(policy), '--', 'bash', '-c', 'true'], cwd);
    const masksAndFilter = await toolHost({ cwd, cgroups: false, limits: { processes: null }, sandbox: { provider: 'bwrap' } });
    await compare(
      'bash -c true in bwrap, the tool with seccomp filter + masks (no cgroup) vs a bare spawn of the bare bwrap argv',
      bare,
      () => masksAndFilter('true'),
    );
    const boxed = await toolHost({ cwd, sandbox: { provider: 'bwrap' } });
    const boxedRatio = await compare(
      'bash -c true in bwrap, the tool with its defaults (+ a process limit where one can be set) vs the same bare spawn',
      bare,
      () => boxed('true'),
    );
    recordRatio({
      pkg: 'tool-bash',
      label: 'bash -c true in bwrap, defaults (cgroup limits on), vs a bare bwrap spawn',
      ratio: boxedRatio,
      target: 1.2,
    });
    const networkRatio = await benchNetwork(cwd, rounds);
    recordRatio({
      pkg: 'tool-bash',
      label: 'bash -c true in bwrap, network through the egress proxy vs off',
      ratio: networkRatio,
      target: 1.3,
    });
  } else {
    console.log(`bwrap: skipped (${probe.reason})`);
  }

  await benchCpuShare(cwd);

  const child = (mode) =>
    JSON.parse(execFileSync(process.execPath, [new URL('./flood.mjs', import.meta.url).pathname, mode, cwd], { encoding: 'utf8' }));
  const idle = child('idle');
  const flood = child('flood');
  console.log(
    `200 MB flood: peak RSS ${flood.peakMb.toFixed(0)} MB (a process that ran only \`true\`: ${idle.peakMb.toFixed(0)} MB, ratio ${(flood.peakMb / idle.peakMb).toFixed(2)}x); ${flood.bytes} bytes captured`,
  );
  // The target is absolute (under 100 MB), recorded as a ratio to it.
  recordRatio({ pkg: 'tool-bash', label: '200 MB flood, peak RSS / 100 MB', ratio: flood.peakMb / 100, target: 1 });
} finally {
  rmSync(cwd, { recursive: true, force: true });
}
