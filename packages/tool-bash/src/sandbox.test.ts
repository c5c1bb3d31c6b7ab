import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashHosts, bwrapStatus, errorOf, okOutput, stoppedOnceStarted, trackProcesses, workspace } from './fixtures/support.js';
import { bwrapArgs } from './sandbox/bwrap.js';

const status = await bwrapStatus();
const ws = workspace();
// Outside the workspace and outside /tmp (which the sandbox replaces): a write there must fail on the read-only root.
const outside = workspace('dsh-bash-outside-', '/var/tmp');
const { env, mark, marked } = trackProcesses();

const host = bashHosts({ cwd: ws, killGraceMs: 300, sandbox: { provider: 'bwrap' } }, env);
/** A grace long enough that only a process ignoring SIGTERM is escalated, however loaded the machine. */
const patientHost = bashHosts({ cwd: ws, killGraceMs: 30_000, sandbox: { provider: 'bwrap' } }, env);

describe('bwrap arguments', () => {
  it('drop every capability, unshare user and nested user namespaces, and mount in a working order', () => {
    // Read-only paths are looked up on disk (missing ones are covered by a stub instead).
    const w = join(ws, 'args');
    mkdirSync(join(w, 'b'), { recursive: true });
    mkdirSync(join(w, '.git'), { recursive: true });
    const args = bwrapArgs({
      writableRoots: [join(w, 'b'), w],
      readOnlyPaths: [join(w, '.git')],
      extraReadablePaths: ['/tmp/out'],
      network: false,
      cwd: w,
    });
    const at = (flag: string, value?: string): number =>
      args.findIndex((a, i) => a === flag && (value === undefined || args[i + 1] === value));
    for (const flag of ['--die-with-parent', '--new-session', '--unshare-all', '--unshare-user', '--disable-userns'])
      expect(args).toContain(flag);
    expect(args[at('--cap-drop') + 1]).toBe('ALL');
    expect(args).not.toContain('--share-net');
    expect(at('--ro-bind', '/')).toBeLessThan(at('--tmpfs', '/tmp'));
    expect(at('--tmpfs', '/tmp')).toBeLessThan(at('--bind', w));
    expect(at('--bind', w)).toBeLessThan(at('--bind', join(w, 'b')));
    expect(at('--bind', join(w, 'b'))).toBeLessThan(at('--ro-bind-try', join(w, '.git')));
    expect(bwrapArgs({ writableRoots: [], readOnlyPaths: [], extraReadablePaths: [], network: true, cwd: '/' })).toContain('--share-net');
  });
});

describe.runIf(!status.ok && status.required)('bubblewrap in CI', () => {
  it('is installed and works (CI must install the bubblewrap package)', () => {
    throw new Error(`bubblewrap is required here but does not work: ${status.reason}`);
  });
});

describe.skipIf(!status.ok)('the bwrap sandbox (real bubblewrap)', () => {
  let server: Server;
  let port = 0;
  beforeAll(async () => {
    server = createServer((socket) => socket.end('hello from the host\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('lets the command write inside the workspace and nowhere else', async () => {
    const t = await host();
    const target = join(outside, 'escaped.txt');
    const out = okOutput(await t.call('bash', { command: `echo inside > inside.txt && echo written; echo x > ${target}; echo "rc=$?"` }));
    expect(out.sandbox).toBe('bwrap');
    expect(out.stdout).toBe('written\nrc=1\n');
    expect(out.stderr).toMatch(/Read-only file system/);
    expect(readFileSync(join(ws, 'inside.txt'), 'utf8')).toBe('inside\n');
    expect(existsSync(target)).toBe(false);
  });

  it('cannot remount / read-write or touch /etc, although the host runs as root', async () => {
    const t = await host();
    const probe = `/etc/dsh-bash-escape-${mark()}`;
    const out = okOutput(
      await t.call('bash', {
        command: `grep CapEff /proc/self/status; mount -o remount,rw,bind / ; echo "mount=$?"; touch ${probe}; echo "touch=$?"`,
      }),
    );
    expect(out.stdout).toMatch(/CapEff:\s+0+\n/);
    expect(out.stdout).toMatch(/mount=(?!0)\d+/);
    expect(out.stdout).toMatch(/touch=1/);
    expect(existsSync(probe)).toBe(false);
  });

  it('cannot create a nested user namespace to undo the mounts', async () => {
    const t = await host();
    const out = okOutput(await t.call('bash', { command: 'unshare -Ur true; echo "unshare=$?"' }));
    expect(out.stdout).not.toMatch(/unshare=0/);
  });

  it('keeps .git read-only inside a writable root', async () => {
    mkdirSync(join(ws, '.git'), { recursive: true });
    const t = await host();
    const out = okOutput(await t.call('bash', { command: 'touch .git/HEAD-from-sandbox; echo "rc=$?"; touch not-git; echo "rc=$?"' }));
    expect(out.stdout).toBe('rc=1\nrc=0\n');
    expect(existsSync(join(ws, '.git', 'HEAD-from-sandbox'))).toBe(false);
  });

  it('gives the command a private /tmp', async () => {
    const t = await host();
    const name = `dsh-bash-private-${mark()}`;
    const out = okOutput(await t.call('bash', { command: `echo secret > /tmp/${name} && cat /tmp/${name}` }));
    expect(out.stdout).toBe('secret\n');
    expect(existsSync(join(tmpdir(), name))).toBe(false);
  });

  it('cannot reach the network (a server on the host loopback) unless network is allowed', async () => {
    const connect = `exec 5<>/dev/tcp/127.0.0.1/${port} && head -n1 <&5 || echo unreachable`;
    const closed = okOutput(await (await host()).call('bash', { command: connect }));
    expect(closed.stdout).toBe('unreachable\n');
    const open = okOutput(await (await host({ sandbox: { network: true } })).call('bash', { command: connect }));
    expect(open.stdout).toBe('hello from the host\n');
  });

  it('kills setsid children on timeout: the PID namespace takes them down', async () => {
    const t = await host();
    const m = mark();
    const error = errorOf(
      await t.call('bash', {
        command: marked(m, 'setsid sleep 300 & setsid bash -c "trap \'\' TERM; sleep 301" & sleep 299'),
        timeout: 300,
      }),
    );
    expect(error.code).toBe('TOOL_TIMEOUT');
    expect(error.data?.sandbox).toBe('bwrap');
  });

  it('gives processes inside the sandbox SIGTERM first, and its grace period', async () => {
    const t = await patientHost();
    const m = mark();
    const command = marked(m, 'trap "echo got-term; exit 7" TERM; echo trapped; sleep 300 & wait');
    const { error } = await stoppedOnceStarted(
      (timeout) => t.call('bash', { command, timeout }),
      (e) => e.data?.stdout.startsWith('trapped\n') === true,
    );
    expect(error.data).toMatchObject({ escalated: false, stdout: 'trapped\ngot-term\n', exitCode: 7 });
  });

  it('never lets a command whose deadline came before the sandbox started it run unsignalled', async () => {
    // Deadlines of a few ms end most calls while bwrap is still setting up. Such a command must never
    // start unsignalled and sit through the grace period, which here (30 s) would end in a SIGKILL.
    const t = await patientHost();
    for (const timeout of [1, 2, 3, 5, 8, 13]) {
      const m = mark();
      const command = marked(m, 'trap "echo got-term; exit 7" TERM; echo trapped; sleep 300 & wait');
      const error = errorOf(await t.call('bash', { command, timeout }));
      expect(error.code).toBe('TOOL_TIMEOUT');
      expect(error.data?.escalated).toBe(false);
      // Never ran, ran and got its SIGTERM, or (on a loaded machine) started between the check of
      // whether it had started and the kill, and died with the namespace: no check-then-signal is atomic.
      expect(['', 'trapped\ngot-term\n', 'trapped\n']).toContain(error.data?.stdout);
    }
  });

  it('kills background and setsid processes when the command exits normally', async () => {
    const t = await host();
    const m = mark();
    okOutput(await t.call('bash', { command: marked(m, 'sleep 300 & setsid sleep 301 & echo done') }));
  });

  it('kills even an escapee that cleared its environment and kept the pipes open', async () => {
    const t = await host();
    const m = mark();
    const out = okOutput(await t.call('bash', { command: `env -i setsid bash -c 'exec -a ${m} sleep 300' & echo settled` }));
    expect(out.stdout).toBe('settled\n');
  });

  it('contains a fork loop with the timeout', async () => {
    const t = await host();
    const m = mark();
    expect(errorOf(await t.call('bash', { command: marked(m, 'while true; do sleep 300 & done'), timeout: 500 })).code).toBe(
      'TOOL_TIMEOUT',
    );
  });

  it('keeps the working directory across sandboxed calls and resets it after a cd into the private /tmp', async () => {
    mkdirSync(join(ws, 'deeper'), { recursive: true });
    const t = await host();
    expect(okOutput(await t.call('bash', { command: 'cd deeper' })).cwd).toBe(join(ws, 'deeper'));
    expect(okOutput(await t.call('bash', { command: 'pwd' })).stdout).toBe(`${join(ws, 'deeper')}\n`);
    const reset = okOutput(await t.call('bash', { command: 'cd /tmp' }));
    expect(reset.cwd).toBe(ws);
    expect(reset.notices?.join()).toMatch(/outside the workspace roots/);
  });

  it('lets a later sandboxed command read a saved full output', async () => {
    const t = await host({ maxOutputChars: 200 });
    const first = okOutput(await t.call('bash', { command: 'seq 1 5000' }));
    const path = first.fullOutputPath as string;
    expect(statSync(path).size).toBeGreaterThan(200);
    const again = okOutput(await t.call('bash', { command: `tail -n 1 ${path}; echo overwrite > ${path}; echo "rc=$?"` }));
    expect(again.stdout).toBe('5000\nrc=1\n');
    rmSync(dirname(path), { recursive: true, force: true });
  });

  it('keeps configured read-only paths read-only', async () => {
    writeFileSync(join(ws, 'locked.txt'), 'locked\n');
    const t = await host({ sandbox: { readOnlyPaths: ['locked.txt'] } });
    const out = okOutput(await t.call('bash', { command: 'echo changed > locked.txt; echo "rc=$?"' }));
    expect(out.stdout).toBe('rc=1\n');
    expect(readFileSync(join(ws, 'locked.txt'), 'utf8')).toBe('locked\n');
  });
});
