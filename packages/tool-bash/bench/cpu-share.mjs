// "Nothing stalls the host": how much slower the host's own work gets while a call keeps many
// processes busy, with the call's processes grouped as one (`limits.cpuAsOneProcess`, the default)
// and not, against the same work on an idle machine, measured in the same run. Prints ratios;
// asserts nothing (the machine is shared and noisy).
//
// The measuring host runs in a child process placed in a CPU cgroup of its own (v1, where this
// process can make one), as in a container or a systemd service: the kernel's autogroup, which
// already groups each session of a process in the root CPU cgroup, does not apply there.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { recordRatio } from '../../../scripts/bench/report.mjs';
import { killProcessesMatching, processesMatching } from '../dist/index.js';
import { median, toolHost } from './common.mjs';

/** Busy processes per call: eight per core, fewer than a build tool's `-j` on a big machine. */
const busy = 8 * availableParallelism();

/** A fixed piece of the host's own work (the pipeline, a model adapter's parsing…), timed. */
function hostWork() {
  const started = performance.now();
  let sum = 0;
  for (let i = 0; i < 200_000_000; i += 1) sum += i % 7;
  if (sum < 0) throw new Error('unreachable');
  return performance.now() - started;
}

/** Times `hostWork` while a call keeps `busy` shells spinning (no forks: `[` is a builtin), then lets them stop. */
async function underLoad(call, cwd) {
  const mark = `dshcpu${randomBytes(6).toString('hex')}`;
  const stop = join(cwd, `stop-${mark}`);
  const command = `export DSH_CPU=${mark}\nfor i in $(seq ${busy}); do ( while [ ! -e ${stop} ]; do :; done ) & done; wait`;
  const running = call(command, 120_000);
  try {
    for (const until = performance.now() + 60_000; processesMatching(mark).length < busy && performance.now() < until; ) await sleep(20);
    return hostWork();
  } finally {
    writeFileSync(stop, '');
    await running;
    killProcessesMatching(mark);
  }
}

/** In the child: idle, grouped and separate rounds, interleaved; prints their times as JSON. */
async function measure(cwd, rounds) {
  const grouped = await toolHost({ cwd, sandbox: { provider: 'none' } }, false, true);
  const apart = await toolHost({ cwd, sandbox: { provider: 'none' }, limits: { cpuAsOneProcess: false } }, false, true);
  const times = { idle: [], grouped: [], apart: [] };
  for (let round = 0; round < rounds; round += 1) {
    times.idle.push(hostWork());
    times.grouped.push(await underLoad(grouped, cwd));
    times.apart.push(await underLoad(apart, cwd));
  }
  console.log(JSON.stringify(times));
}

/** A fresh CPU cgroup (v1) beside this process's own, or undefined where none can be made. */
function containerCgroup() {
  const own = readFileSync('/proc/self/cgroup', 'utf8')
    .split('\n')
    .find((line) => (line.split(':')[1] ?? '').split(',').includes('cpu'));
  const mount = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .find((line) => / - cgroup /.test(line) && (line.split(' - ')[1]?.split(' ')[2] ?? '').split(',').includes('cpu'));
  const [, , , root, point] = mount?.split(' - ')[0]?.split(' ') ?? [];
  if (own === undefined || root !== '/' || point === undefined) return undefined;
  const dir = join(point, own.split(':')[2] ?? '/', `dsh-bench-host-${process.pid}`);
  try {
    mkdirSync(dir);
    return dir;
  } catch {
    return undefined;
  }
}

/** Removes the cgroup once the child's leftovers (its prepared launchers, which exit when it does) are gone. */
async function removeCgroup(dir) {
  for (let tries = 0; existsSync(dir); tries += 1) {
    try {
      rmdirSync(dir);
    } catch (error) {
      if (tries >= 200) throw error;
      await sleep(50);
    }
  }
}

/** Records how much the host's work slows while a call keeps the CPU busy. */
export async function benchCpuShare(cwd, rounds = 3) {
  const dir = containerCgroup();
  let times;
  try {
    const script = new URL(import.meta.url).pathname;
    const out = execFileSync(process.execPath, [script, 'child', cwd, String(rounds), dir ?? ''], { encoding: 'utf8' });
    times = JSON.parse(out.trim().split('\n').at(-1));
  } finally {
    if (dir !== undefined) await removeCgroup(dir);
  }
  const where = dir === undefined ? "in this process's CPU cgroup" : 'in a CPU cgroup of its own, as in a container';
  const ratio = median(times.grouped) / median(times.idle);
  const apart = median(times.apart) / median(times.idle);
  console.log(
    `host work (${where}) while a call runs ${busy} busy processes: idle ${median(times.idle).toFixed(0)} ms, ` +
      `grouped (cpuAsOneProcess) ${median(times.grouped).toFixed(0)} ms (${ratio.toFixed(2)}x), ` +
      `each on its own ${median(times.apart).toFixed(0)} ms (${apart.toFixed(2)}x)`,
  );
  recordRatio({
    pkg: 'tool-bash',
    label: `host work while a call runs ${busy} busy processes (cpuAsOneProcess) vs idle`,
    ratio,
    target: 1.5,
    note: `each process on its own: ${apart.toFixed(2)}x (${where})`,
  });
}

if (process.argv[2] === 'child') {
  const [, , , cwd, rounds, dir] = process.argv;
  if (dir !== '') writeFileSync(join(dir, 'cgroup.procs'), String(process.pid));
  await measure(cwd, Number(rounds));
  process.exit(0);
}
