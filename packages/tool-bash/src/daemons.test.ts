// Daemons without the sandbox: with a cgroup per call none outlives its call; without one, in a PID
// namespace of its own (root with unshare) none outlives its call either; with the sweep alone, the
// README's exception (an escapee that cleared its environment) survives.
import { describe, expect, it } from 'vitest';
import { bashHosts, okOutput, trackProcesses, workspace } from './fixtures/support.js';
import { CgroupFactory } from './internal/cgroups.js';
import { pidNamespaceSupport } from './internal/pid-namespace.js';
import { killProcessesMatching, processesMatching, waitForNoProcesses } from './processes.js';

const ws = workspace();
const { env, mark } = trackProcesses();
const cgroups = CgroupFactory.detect();
const namespace = (await pidNamespaceSupport()).ok;
const why = cgroups?.killable
  ? ''
  : ' (skipped: this process cannot create a cgroup v2 with cgroup.kill here: not root, no delegated subtree, or no cgroup2 mount)';

/** Waits (inside the command) until a process whose argv[0] is `name` runs: the daemon is set up. */
const until = (name: string): string => `until grep -qsa '^${name}' /proc/[0-9]*/cmdline; do sleep 0.01; done`;
/** Every descriptor the tool watches closed: stdout, stderr, and fd 3 (the directory report). */
const closed = '>/dev/null 2>&1 </dev/null 3>&-';

/**
 * The daemon forms of the issue, each running `sleep 300` renamed to a fresh
 * name (found by its command line, whatever its environment). Each command
 * waits until its daemon runs before it exits.
 */
const daemons: { name: string; command: (name: string) => string; clearsEnvironment: boolean; keepsPipes: boolean }[] = [
  {
    name: 'setsid, keeping the output pipes',
    command: (n) => `setsid bash -c 'exec -a ${n} sleep 300' & ${until(n)}`,
    clearsEnvironment: false,
    keepsPipes: true,
  },
  {
    name: 'setsid + nohup, output closed',
    command: (n) => `setsid nohup bash -c 'exec -a ${n} sleep 300' ${closed} & ${until(n)}`,
    clearsEnvironment: false,
    keepsPipes: false,
  },
  {
    name: 'a double fork with setsid in between, output closed',
    command: (n) => `( setsid bash -c '( exec -a ${n} sleep 300 ) &' ${closed} & ) ; ${until(n)}`,
    clearsEnvironment: false,
    keepsPipes: false,
  },
  {
    name: 'env -i setsid, keeping the output pipes',
    command: (n) => `env -i setsid bash -c 'exec -a ${n} sleep 300' & ${until(n)}`,
    clearsEnvironment: true,
    keepsPipes: true,
  },
  {
    name: 'env -i setsid, output closed',
    command: (n) => `env -i setsid bash -c 'exec -a ${n} sleep 300' ${closed} & ${until(n)}`,
    clearsEnvironment: true,
    keepsPipes: false,
  },
];

/** Polls until `name` runs as exactly one process (the renamed sleep); the bound only ends a hang. */
async function running(name: string): Promise<string[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const found = processesMatching(name).map((p) => p.command);
    if (found.length === 1 || Date.now() > deadline) return found;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.skipIf(!cgroups?.killable)(`without the sandbox, with a cgroup per call${why}`, () => {
  const host = bashHosts({ cwd: ws, killGraceMs: 300, sandbox: { provider: 'none' } }, env);

  for (const daemon of daemons) {
    it(`kills a daemon after a normal exit: ${daemon.name}`, async () => {
      const t = await host();
      const name = mark();
      const out = okOutput(await t.call('bash', { command: `${daemon.command(name)}; echo started` }));
      expect(out.stdout).toBe('started\n');
      expect(await waitForNoProcesses(name)).toEqual([]);
    });
  }

  it('kills them with the sweep turned off too: the cgroup does not depend on it', async () => {
    const t = await host({ sweepEscapees: false });
    const name = mark();
    const command = daemons[4]?.command(name) ?? '';
    okOutput(await t.call('bash', { command: `${command}; echo started` }));
    expect(await waitForNoProcesses(name)).toEqual([]);
  });
});

describe(`without the sandbox, without cgroups (${namespace ? 'a PID namespace per call' : 'the sweep'})`, () => {
  const host = bashHosts({ cwd: ws, killGraceMs: 300, cgroups: false, sandbox: { provider: 'none' } }, env);

  for (const daemon of daemons) {
    // The README: the sweep runs after a normal exit only while the output pipes stay open, and finds only the marker.
    const swept = daemon.keepsPipes && !daemon.clearsEnvironment;
    const verdict = namespace ? 'gone before the result (PID namespace)' : swept ? 'killed by the sweep' : 'survives, as the README says';
    it(`${daemon.name}: ${verdict}`, async () => {
      const t = await host();
      const name = mark();
      try {
        okOutput(await t.call('bash', { command: `${daemon.command(name)}; echo started` }));
        // In a namespace the result comes after the last process: read at once, not polled.
        if (namespace) expect(processesMatching(name)).toEqual([]);
        else if (swept) expect(await waitForNoProcesses(name)).toEqual([]);
        else expect(await running(name)).toEqual([`${name} 300`]);
      } finally {
        killProcessesMatching(name);
        expect(await waitForNoProcesses(name)).toEqual([]);
      }
    });
  }
});
