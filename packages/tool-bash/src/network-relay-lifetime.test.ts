import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bashHosts, bwrapStatus, okOutput, trackProcesses, workspace } from './fixtures/support.js';
import { bwrapSandbox } from './index.js';
import { processesMatching } from './processes.js';

// The egress relay of a call is prepared before the call (socat listening in a network namespace
// of its own) and the sandbox joins that namespace. These tests hold what that must not lose: a
// namespace per call, ended with the call, and with a host killed outright (the spare too).

const status = await bwrapStatus();
const ws = workspace();
// The hosts' TMPDIRs, outside the workspace: a relay folder is never made where a sandbox may write.
const hostTmps = workspace('dsh-relay-host-tmp-');
const { env } = trackProcesses();
const host = bashHosts({ cwd: ws, sandbox: { provider: 'bwrap' } }, env);
const network = { allowAddresses: ['127.0.0.1'], allowedDomains: ['127.0.0.1'] };

let web: Server;
let webPort = 0;
beforeAll(async () => {
  web = createServer((_req, res) => res.end('through the proxy'));
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  webPort = (web.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => web.close(() => resolve()));
});

/** Live processes in the network namespace `netns` (`net:[inode]`, as `readlink /proc/self/ns/net` prints it). */
function processesIn(netns: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readlinkSync(`/proc/${name}/ns/net`) !== netns) continue;
      // Zombies keep their namespace links until reaped; they run nothing.
      if (/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${name}/stat`, 'utf8'))) continue;
      found.push(Number(name));
    } catch {
      // Gone, or a kernel thread.
    }
  }
  return found;
}

/** Polls until `check` holds; the test's timeout is the only bound. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await sleep(20);
}

// NO_PROXY names loopback (the peers' default): unset here, so curl goes through the relay to the host's loopback.
const fetchAndName = 'env -u NO_PROXY -u no_proxy curl -sS --max-time 60 http://127.0.0.1:PORT/; echo; readlink /proc/self/ns/net';

let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill('SIGKILL');
  child = undefined;
});

describe.runIf(status.ok || status.required)('the egress relay of a call', () => {
  it('listens in a network namespace of the call alone, ended with the call', async () => {
    const t = await host({ sandbox: { network } });
    const fetch = fetchAndName.replace('PORT', String(webPort));
    // Two calls at once, each holding its namespace until both have named theirs: namespaces alive at the
    // same time have distinct inodes (one freed may be reused, so calls one after another prove nothing).
    const both = '[ -s ns-a ] && [ -s ns-b ]';
    const call = (name: string) =>
      t.call('bash', {
        command: `readlink /proc/self/ns/net > ${name}.tmp && mv ${name}.tmp ${name}; until ${both}; do sleep 0.05; done; ${fetch}`,
      });
    const [a, b] = await Promise.all([call('ns-a'), call('ns-b')]);
    const first = okOutput(a).stdout.trim().split('\n');
    const second = okOutput(b).stdout.trim().split('\n');
    // Each command reached the proxy at once: its relay listened before it ran.
    expect(first[0]).toBe('through the proxy');
    expect(second[0]).toBe('through the proxy');
    expect(first[1]).toMatch(/^net:\[\d+\]$/);
    expect(second[1]).not.toBe(first[1]);
    expect(first[1]).not.toBe(readlinkSync('/proc/self/ns/net'));
    // The relay (and every connection it forked) is ended with its call: nothing is left in its namespace.
    await until(() => processesIn(first[1] as string).length === 0);
    await until(() => processesIn(second[1] as string).length === 0);
  });

  /** Starts a host in a child process whose bash calls have `command` as their steps, one after another, then idles. */
  function hostProcess(hostTmp: string, commands: readonly string[]): ChildProcess {
    const steps = commands.map((command, i) => ({ calls: [{ id: `c${i}`, name: 'bash', args: { command, timeout: 600000 } }] }));
    const script = `
      import { createHost } from '@deepseek-ai/dsh-core';
      import { toolBash } from '${new URL('../dist/index.js', import.meta.url).pathname}';
      const host = createHost({ defaultDecision: 'allow' });
      await host.use(toolBash({ cwd: ${JSON.stringify(ws)}, sandbox: { provider: 'bwrap', network: ${JSON.stringify(network)} }, env: { set: ${JSON.stringify(env)} } }));
      for (const step of ${JSON.stringify(steps)}) await host.runStep(step);
      setInterval(() => {}, 60000);
    `;
    return spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: import.meta.dirname,
      stdio: 'ignore',
      env: { ...process.env, TMPDIR: hostTmp },
    });
  }

  /** socat processes (not the bwrap around them) of the host whose temporary directory is `hostTmp` (the relay's link lives there). */
  const relaysOf = (hostTmp: string) => processesMatching(`${hostTmp}/`).filter((p) => /^\S*socat /.test(p.command));

  async function killHost(): Promise<void> {
    const gone = new Promise((resolve) => child?.once('exit', resolve));
    child?.kill('SIGKILL');
    await gone;
  }

  it('dies with a host killed outright during the call', async () => {
    const hostTmp = join(hostTmps, 'killed-host-tmp');
    mkdirSync(hostTmp);
    const named = join(ws, 'netns');
    child = hostProcess(hostTmp, [`{ ${fetchAndName.replace('PORT', String(webPort))}; } > ${named}; sleep 600`]);
    await until(() => existsSync(named) && readFileSync(named, 'utf8').includes('net:['));
    const [reached, netns] = readFileSync(named, 'utf8').trim().split('\n');
    expect(reached).toBe('through the proxy');
    expect(relaysOf(hostTmp).length).toBeGreaterThan(0);
    expect(processesIn(netns as string).length).toBeGreaterThan(0);
    await killHost();
    await until(() => processesIn(netns as string).length === 0);
    await until(() => processesMatching(`${hostTmp}/`).length === 0);
  });

  it("makes the next call's relay once a call is over, and that spare dies with a host killed outright", async () => {
    const hostTmp = join(hostTmps, 'idle-host-tmp');
    mkdirSync(hostTmp);
    const done = join(ws, 'first-done');
    child = hostProcess(hostTmp, [`echo > ${done}`]);
    await until(() => existsSync(done));
    // The call's own relay is ended with it; the spare for the next call listens while the host idles.
    await until(() => relaysOf(hostTmp).length === 1);
    await killHost();
    await until(() => processesMatching(`${hostTmp}/`).length === 0);
  });

  it('is never skipped: a sandbox asked for the proxy network without a prepared relay refuses (NETWORK_RELAY_FAILED)', () => {
    const policy = { writableRoots: [ws], readOnlyPaths: [], extraReadablePaths: [], network: false, cwd: ws };
    const egress = { socketPath: join(ws, 'x.sock'), relayPath: '/usr/bin/socat' };
    let refused: unknown;
    try {
      bwrapSandbox().wrap({ file: '/bin/true', args: [] }, { ...policy, egress });
    } catch (error) {
      refused = error;
    }
    expect((refused as { code?: string } | undefined)?.code).toBe('NETWORK_RELAY_FAILED');
  });
});
