import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashHosts, bwrapStatus, errorOf, okOutput, trackProcesses, workspace } from './fixtures/support.js';
import { bwrapSandbox, type SandboxPolicy } from './index.js';

// socat follows the relay's link, then the call's proxy socket, by their host paths, outside every
// sandbox. A command that could write either folder could point them at any unix socket of the host
// (docker.sock) and reach it through 127.0.0.1:3128. These tests try that with a decoy socket.

const status = await bwrapStatus();
const ws = workspace();
const outside = workspace('dsh-relay-decoy-');
const { env } = trackProcesses();
const network = { allowAddresses: ['127.0.0.1'], allowedDomains: ['127.0.0.1'] };

let web: HttpServer;
let webPort = 0;
let decoy: Server;
const decoyPath = join(outside, 'docker.sock');
let decoyConnections = 0;

beforeAll(async () => {
  web = createHttpServer((_req, res) => res.end('through the proxy'));
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  webPort = (web.address() as { port: number }).port;
  // Stands in for docker.sock: answers anything, and counts who reached it.
  decoy = createServer((socket) => {
    decoyConnections += 1;
    socket.end('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nDECOY');
  });
  await new Promise<void>((resolve) => decoy.listen(decoyPath, resolve));
});
afterAll(async () => {
  await new Promise<void>((resolve) => web.close(() => resolve()));
  await new Promise<void>((resolve) => decoy.close(() => resolve()));
});

/** Rewrites every link and socket it finds in the relay's and the proxy's folders under `hostTmp` to the decoy, then goes through the relay. */
function attack(hostTmp: string): string {
  return [
    `for l in ${hostTmp}/dsh-relay-*/* ${hostTmp}/dsh-egress-*/*; do`,
    `  if [ -e "$l" ] || [ -L "$l" ]; then rm -f "$l" && ln -s ${decoyPath} "$l" && echo "rewrote $l"; fi`,
    'done',
    `env -u NO_PROXY -u no_proxy curl -sS --max-time 30 http://127.0.0.1:${webPort}/; echo`,
  ].join('\n');
}

describe.runIf(status.ok || status.required)('the relay folder, with TMPDIR inside the workspace', () => {
  const hostTmp = join(ws, '.tmp');
  let saved: string | undefined;
  beforeAll(() => {
    mkdirSync(hostTmp);
    saved = process.env.TMPDIR;
    // Before the pool and the proxy make their folders (the first call's).
    process.env.TMPDIR = hostTmp;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  });

  it('cannot be redirected to a host unix socket by the command', async () => {
    const t = await bashHosts({ cwd: ws, sandbox: { provider: 'bwrap', network } }, env)();
    const before = decoyConnections;
    for (let call = 0; call < 2; call += 1) {
      // Twice: the second call's relay was made as a spare while the host was idle.
      const out = okOutput(await t.call('bash', { command: attack(hostTmp) }));
      expect(decoyConnections, out.stdout).toBe(before);
      expect(out.stdout).not.toContain('rewrote');
      expect(out.stdout).toContain('through the proxy');
    }
    // Neither folder was made where the command may write.
    expect(readdirSync(hostTmp).filter((name) => name.startsWith('dsh-'))).toEqual([]);
  });

  it('refuses a call whose proxy socket folder the command may write (NETWORK_RELAY_FAILED)', async () => {
    const socketDirectory = join(ws, 'sockets');
    const t = await bashHosts({ cwd: ws, sandbox: { provider: 'bwrap', network: { ...network, socketDirectory } } }, env)();
    const before = decoyConnections;
    const error = errorOf(await t.call('bash', { command: `echo ran > ${join(ws, 'ran')}; ${attack(ws)}` }));
    expect(error.code).toBe('NETWORK_RELAY_FAILED');
    expect(error.message).toContain(socketDirectory);
    expect(error.message).toContain(ws);
    expect(existsSync(join(ws, 'ran'))).toBe(false);
    expect(decoyConnections).toBe(before);
  });
});

describe.runIf(status.ok || status.required)('the relay folder of the bwrap provider', () => {
  const policy = (writableRoots: string[]): SandboxPolicy => ({
    writableRoots,
    readOnlyPaths: [],
    extraReadablePaths: [],
    network: false,
    cwd: ws,
  });
  // socat connects only when a client comes: the socket need not exist, and its folder is outside every base.
  const egress = { socketPath: '/nonexistent-dsh-test/call.sock', relayPath: '/usr/bin/socat' };
  /** The folder of the link the relay in `net` (`/proc/<pid>/ns/net`) follows, from socat's own command line. */
  const linkFolder = (net: string): string => {
    const args = readFileSync(net.replace(/ns\/net$/, 'cmdline'), 'utf8').split('\0');
    const target = args.find((arg) => arg.startsWith('UNIX-CONNECT:')) as string;
    return dirname(target.slice('UNIX-CONNECT:'.length));
  };
  const refusal = (run: () => unknown): { code?: string; message?: string } => {
    try {
      run();
    } catch (error) {
      return error as { code?: string; message?: string };
    }
    return {};
  };

  it('left by a process killed outright is removed when the next one is made there, unless its owner lives', async () => {
    const first = await bwrapSandbox().prepareEgress?.(egress);
    if (first === undefined) throw new Error('bwrap prepares relays');
    const base = dirname(linkFolder(first.namespace.net));
    first.release();
    const namespace = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1] as string;
    const dead = join(base, `dsh-relay-${namespace}-${spawnSync('true').pid}-Abc123`);
    const live = join(base, `dsh-relay-${namespace}-${process.pid}-Abc123`);
    for (const dir of [dead, live]) {
      mkdirSync(dir);
      symlinkSync(decoyPath, join(dir, 'relay-1.sock'));
    }
    try {
      const second = await bwrapSandbox().prepareEgress?.(egress);
      second?.release();
      expect(existsSync(dead)).toBe(false);
      expect(existsSync(live)).toBe(true);
    } finally {
      rmSync(dead, { recursive: true, force: true });
      rmSync(live, { recursive: true, force: true });
    }
  });

  it('is checked against each call: a policy that may write it is refused, and the next relay is made elsewhere', async () => {
    const sandbox = bwrapSandbox();
    const first = await sandbox.prepareEgress?.(egress);
    if (first === undefined) throw new Error('bwrap prepares relays');
    const folder = linkFolder(first.namespace.net);
    const base = dirname(folder);
    // A call whose policy grants the base (say `Edit(/tmp/**)` allowed) must not run with this relay.
    const refused = refusal(() =>
      sandbox.wrap({ file: '/bin/true', args: [] }, { ...policy([ws, base]), egress: { ...egress, namespace: first.namespace } }),
    );
    first.release();
    expect(refused.code).toBe('NETWORK_RELAY_FAILED');
    expect(refused.message).toContain(folder);
    expect(refused.message).toContain(`inside ${base},`);
    // The given-up folder is removed once no relay of it is in use.
    expect(existsSync(folder)).toBe(false);
    const second = await sandbox.prepareEgress?.(egress);
    if (second === undefined) throw new Error('bwrap prepares relays');
    try {
      const next = linkFolder(second.namespace.net);
      expect(next.startsWith(`${base}/`)).toBe(false);
      // And it is accepted for that same policy.
      expect(
        sandbox.wrap({ file: '/bin/true', args: [] }, { ...policy([ws, base]), egress: { ...egress, namespace: second.namespace } }).file,
      ).toMatch(/nsenter$/);
    } finally {
      second.release();
    }
  });

  it('is refused when no base is outside what a sandbox may write (NETWORK_RELAY_FAILED naming each)', async () => {
    const sandbox = bwrapSandbox();
    // A policy with `/` writable: every base is inside it (this also holds for the rest of this file).
    sandbox.wrap({ file: '/bin/true', args: [] }, policy(['/']));
    const error = await sandbox.prepareEgress?.(egress).then(
      () => undefined,
      (e: { code?: string; message?: string }) => e,
    );
    expect(error?.code).toBe('NETWORK_RELAY_FAILED');
    expect(error?.message).toContain('/dev/shm (inside the writable /)');
  });
});

describe.runIf(status.ok || status.required)('the relay folder of a host that exits', () => {
  it('is removed', async () => {
    const hostTmp = workspace('dsh-relay-exit-');
    const script = `
      import { readdirSync } from 'node:fs';
      import { createHost } from '@deepseek-ai/dsh-core';
      import { toolBash } from '${new URL('../dist/index.js', import.meta.url).pathname}';
      const host = createHost({ defaultDecision: 'allow' });
      await host.use(toolBash({ cwd: ${JSON.stringify(ws)}, sandbox: { provider: 'bwrap', network: ${JSON.stringify(network)} }, env: { set: ${JSON.stringify(env)} } }));
      await host.runStep({ calls: [{ id: 'c0', name: 'bash', args: { command: 'true' } }] });
      console.log(readdirSync(process.env.TMPDIR).join(' '));
      // The next call's relay is made once the call is over: let it start, then leave.
      setTimeout(() => process.exit(0), 200);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: import.meta.dirname,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, TMPDIR: hostTmp },
    });
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
    // The call saw its relay's folder under the host's TMPDIR, and the exit removed it.
    expect(out).toContain('dsh-relay-');
    expect(readdirSync(hostTmp).filter((name) => name.startsWith('dsh-relay-'))).toEqual([]);
  });
});
