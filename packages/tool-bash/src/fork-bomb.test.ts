// Issue 27 item 2: a fork bomb in the sandbox must be stopped without stalling the host. The bomb is
// real and runs under the plugin's own process limit (limits.processes, 4096 by default); whatever
// happens, trackProcesses kills what carries the file's marker after each test. No process of the call
// may be alive when its result arrives (issue 35 item 5).
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { bashHosts, bwrapStatus, stoppedOnceStarted, trackProcesses, workspace } from './fixtures/support.js';
import { procScanCounts } from './internal/proc-scan.js';
import { processesMatching } from './processes.js';

const status = await bwrapStatus();
const ws = workspace();
const { env, mark, marked } = trackProcesses();
const host = bashHosts({ cwd: ws, killGraceMs: 500, sandbox: { provider: 'bwrap' } }, env);

/**
 * The classic bomb (named `bomb` rather than `:`); the shell then waits on a FIFO nobody writes
 * (a builtin: no fork, which fails once the bomb hits the limit): only the timeout ends it. The
 * test counts the call's processes from outside, in its cgroup's `pids.current`: inside, the
 * waiting shell shares one process's CPU with the whole bomb and can barely run. The event loop's
 * delay is measured from the deadline on.
 */
const bomb = ['mkfifo /tmp/never && exec 7<>/tmp/never', 'bomb() { bomb | bomb & }; bomb', 'read -r -u 7'].join('\n');

/** How many processes a bomb must have reached for the run to count. */
const grownTo = 400;

/** Every directory named `name` right under this process's own cgroup, in each mounted hierarchy. */
function cgroupsNamed(name: string): string[] {
  const own = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  const found: string[] = [];
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const [left, right] = line.split(' - ');
    const [type, , options] = right?.split(' ') ?? [];
    if (type !== 'cgroup' && type !== 'cgroup2') continue;
    const fields = left?.split(' ') ?? [];
    const controllers = (options ?? '').split(',');
    const entry = own
      .map((l) => l.split(':'))
      .find(([, c]) => (type === 'cgroup2' ? c === '' : (c ?? '').split(',').some((x) => controllers.includes(x))));
    const path = entry?.[2];
    const root = fields[3] ?? '/';
    if (path === undefined || fields[4] === undefined || !path.startsWith(root)) continue;
    const dir = join(resolve(fields[4], `.${path.slice(root.length)}`), name);
    if (existsSync(dir)) found.push(dir);
  }
  return found;
}

/** A cgroup's process count, where it has the `pids` controller; 0 otherwise or once it is gone. */
function pidsCurrent(dir: string): number {
  try {
    return Number(readFileSync(join(dir, 'pids.current'), 'utf8'));
  } catch {
    return 0;
  }
}

/** The names of the `dsh-bash-*` cgroups a process is in (any hierarchy); empty once it is gone. */
function cgroupsOf(pid: number): string[] {
  let lines: string[];
  try {
    lines = readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n');
  } catch {
    return [];
  }
  const names = lines.map((line) => line.slice(line.lastIndexOf('/') + 1)).filter((name) => name.startsWith('dsh-bash-'));
  return [...new Set(names)];
}

describe.skipIf(!status.ok)('a fork bomb in the bwrap sandbox', () => {
  it('is stopped through its namespace, with no synchronous /proc scan, and leaves no process and no cgroup', async () => {
    const t = await host();
    const m = mark();
    const delay = monitorEventLoopDelay({ resolution: 10 });
    const before = procScanCounts.sync;
    let settledAfterDeadlineMs = 0;
    let aliveAtResult = -1;
    /** Whether the bomb of the latest run reached {@link grownTo} processes before its deadline. */
    let grown = false;
    /** The test's own synchronous scans (the check above), not the tool's. */
    let ownScans = 0;
    /** The call's own cgroups, read from outside while it runs (a prepared launcher's is named after another marker). */
    const callCgroups = new Set<string>();
    delay.enable();
    const { error, timeoutMs } = await stoppedOnceStarted(
      async (timeout) => {
        const started = performance.now();
        const reset = setTimeout(() => delay.reset(), timeout);
        const call = t.call('bash', { command: marked(m, bomb), timeout });
        let running = true;
        void call.finally(() => {
          running = false;
        });
        // This run's own cgroups (an earlier, shorter run had others).
        const ours = new Set<string>();
        while (running && ours.size === 0) {
          const scansBefore = procScanCounts.sync;
          const first = processesMatching(m)[0];
          ownScans += procScanCounts.sync - scansBefore;
          for (const name of first === undefined ? [] : cgroupsOf(first.pid)) ours.add(name);
          if (ours.size === 0) await new Promise((r) => setTimeout(r, 10));
        }
        for (const name of ours) callCgroups.add(name);
        grown = false;
        while (running && !grown) {
          grown = [...ours].some((name) => cgroupsNamed(name).some((dir) => pidsCurrent(dir) >= grownTo));
          if (!grown) await new Promise((r) => setTimeout(r, 10));
        }
        const outcome = await call;
        // Issue 35 item 5: the result comes only once every process of the call is gone.
        const scansBefore = procScanCounts.sync;
        aliveAtResult = processesMatching(m).length;
        ownScans += procScanCounts.sync - scansBefore;
        clearTimeout(reset);
        settledAfterDeadlineMs = performance.now() - started - timeout;
        return outcome;
      },
      // Only a bomb that has grown counts.
      () => grown,
    );
    delay.disable();
    const scans = procScanCounts.sync - before - ownScans;
    console.log(
      `fork bomb (escalated: ${error.data?.escalated}, timeout ${timeoutMs} ms, grace 500 ms): settled ${Math.round(settledAfterDeadlineMs)} ms after the deadline; ` +
        `event loop delay from the deadline on: max ${(delay.max / 1e6).toFixed(1)} ms, mean ${(delay.mean / 1e6).toFixed(1)} ms; synchronous /proc scans: ${scans}`,
    );
    expect(error.code).toBe('TOOL_TIMEOUT');
    // SIGTERM to the command's session often ends a bash bomb within the grace period; SIGKILL to the namespace does otherwise.
    expect(error.data).toMatchObject({ stoppedBy: 'timeout', timeoutMs, sandbox: 'bwrap' });
    expect(error.data?.notices?.join() ?? '').not.toMatch(/could not be killed/);
    // The structure, not the speed: the termination path never walks /proc on the event loop.
    expect(scans).toBe(0);
    expect([...callCgroups]).not.toEqual([]);
    for (const name of callCgroups) expect(cgroupsNamed(name)).toEqual([]);
    expect(aliveAtResult).toBe(0);
  });
});
