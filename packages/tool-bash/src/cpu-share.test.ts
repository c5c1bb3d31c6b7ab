// "Nothing stalls the host": a call that starts many busy processes (a fork bomb, `make -j64`, a
// hog) must not take the machine's CPU from the host. Each process competes with the host's
// threads on its own unless the call's processes form one scheduling group: then, when the CPU is
// contended, they get together what one ordinary process gets. Measured by `pnpm bench`
// (bench/cpu-share.mjs); here the structure that gives it: every process of the call sits in one
// CPU cgroup of its own, at the default weight.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bashHosts, bwrapStatus, okOutput, trackProcesses, workspace } from './fixtures/support.js';
import { CgroupFactory } from './internal/cgroups.js';
import { processesMatching } from './processes.js';

const status = await bwrapStatus();
const groupable = CgroupFactory.detect()?.canLimit('cpuAsOneProcess') === true;
const ws = workspace();
const { env, mark, marked } = trackProcesses();

/** The process's cgroup directory in the hierarchy that carries the `cpu` controller (v1, else v2). */
function cpuCgroupOf(pid: number): string | undefined {
  let lines: string[];
  try {
    lines = readFileSync(`/proc/${pid}/cgroup`, 'utf8').trim().split('\n');
  } catch {
    return undefined;
  }
  const v1 = lines.find((line) => (line.split(':')[1] ?? '').split(',').includes('cpu'));
  const path = v1 === undefined ? lines.find((line) => line.startsWith('0::'))?.slice(3) : v1.split(':')[2];
  return path === undefined ? undefined : directoryOf(v1 === undefined ? undefined : 'cpu', path);
}

/** Where a cgroup path of the v1 hierarchy of `controller` (or, undefined, of v2) is, from this process's mounts. */
function directoryOf(controller: string | undefined, path: string): string | undefined {
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const [left, right] = line.split(' - ');
    const [type, , options] = right?.split(' ') ?? [];
    const [, , , root = '/', point = ''] = left?.split(' ') ?? [];
    const matches = controller === undefined ? type === 'cgroup2' : type === 'cgroup' && (options ?? '').split(',').includes(controller);
    if (matches && (root === '/' || path.startsWith(root))) return join(point, root === '/' ? path : path.slice(root.length));
  }
  return undefined;
}

/**
 * Runs `busy` copies of a shell that waits for a file, reads the CPU cgroup of every process of
 * the call from outside while they run, then lets them finish.
 */
async function cpuGroupsOfACall(options: Parameters<ReturnType<typeof bashHosts>>[0]) {
  const t = await bashHosts({ cwd: ws, killGraceMs: 500 }, env)(options);
  const m = mark();
  const go = join(ws, `go-${m}`);
  const busy = 3;
  const command = marked(m, `for i in $(seq ${busy}); do ( until [ -e ${go} ]; do sleep 0.05; done ) & done; wait`);
  const call = t.call('bash', { command });
  // One shell plus its copies; the bound only ends a hang.
  let seen = processesMatching(m);
  for (const until = Date.now() + 60_000; seen.length < busy + 1 && Date.now() < until; seen = processesMatching(m)) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  // A `sleep` of the loop may be gone by now: it has no cgroup to read.
  const groups = [...new Set(seen.map((p) => cpuCgroupOf(p.pid)).filter((dir) => dir !== undefined))];
  // Read while the call runs: its cgroups go with it.
  const weights = groups.map((dir) => (dir === undefined ? undefined : weightOf(dir)));
  writeFileSync(go, '');
  const result = okOutput(await call);
  return { groups, weights, seen: seen.length, result, busy };
}

/** The weight a new CPU cgroup gets by default: that of one ordinary (nice 0) process. */
function weightOf(dir: string): string {
  return existsSync(join(dir, 'cpu.shares'))
    ? `shares ${readFileSync(join(dir, 'cpu.shares'), 'utf8').trim()}`
    : `weight ${readFileSync(join(dir, 'cpu.weight'), 'utf8').trim()}`;
}

const own = cpuCgroupOf(process.pid);
const kinds = [
  { name: 'sandboxed', sandbox: { provider: 'bwrap' as const }, runs: status.ok },
  { name: 'unsandboxed', sandbox: { provider: 'none' as const }, runs: true },
];

describe.skipIf(!groupable)('the processes of a call share the CPU as one process', () => {
  for (const kind of kinds) {
    it.skipIf(!kind.runs)(`${kind.name}: every process of the call is in one CPU cgroup of its own, at the default weight`, async () => {
      const { groups, weights, seen, result, busy } = await cpuGroupsOfACall({ sandbox: kind.sandbox });
      expect(seen).toBeGreaterThanOrEqual(busy + 1);
      expect(groups).toHaveLength(1);
      const [group] = groups as [string | undefined];
      expect(group).toMatch(/\/dsh-bash-[^/]+$/);
      expect(group).not.toBe(own);
      expect(weights).toEqual([expect.stringMatching(/^(shares 1024|weight 100)$/)]);
      expect(result.limits?.cpuAsOneProcess).toBe(true);
    });
  }

  it('leaves the processes in the host CPU cgroup with cpuAsOneProcess: false', async () => {
    const { groups, result } = await cpuGroupsOfACall({ sandbox: { provider: 'none' }, limits: { cpuAsOneProcess: false } });
    expect(groups).toEqual([own]);
    expect(result.limits?.cpuAsOneProcess).toBeUndefined();
  });
});
