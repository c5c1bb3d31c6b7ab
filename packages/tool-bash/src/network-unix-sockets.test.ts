import { existsSync, mkdirSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashHosts, bwrapStatus, errorOf, okOutput, trackProcesses, workspace } from './fixtures/support.js';

// With the network through the egress proxy, the relay used to run inside the sandbox, so the
// seccomp filter had to allow AF_UNIX for it: every host unix socket the sandbox could see by path
// (Docker's, D-Bus, an agent's, the proxy's own) was reachable. The relay now runs outside the
// filter, and nothing inside may open a unix socket.

const status = await bwrapStatus();
const ws = workspace();
const visible = workspace('dsh-unix-sockets-', '/var/tmp');
const { env } = trackProcesses();
const host = bashHosts({ cwd: ws, sandbox: { provider: 'bwrap' } }, env);

let web: HttpServer;
let webPort = 0;
/** A host unix socket in the workspace, where the sandbox sees it by path. */
const hostSocket = join(ws, 'host-sockets', 'agent.sock');
let unixServer: Server;
let unixConnections = 0;
beforeAll(async () => {
  web = createHttpServer((_req, res) => res.end('through the proxy'));
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  webPort = (web.address() as { port: number }).port;
  mkdirSync(join(ws, 'host-sockets'), { recursive: true });
  unixServer = createServer((socket) => {
    unixConnections += 1;
    socket.end('host secret\n');
  });
  await new Promise<void>((resolve) => unixServer.listen(hostSocket, resolve));
});
afterAll(async () => {
  await new Promise<void>((resolve) => web.close(() => resolve()));
  await new Promise<void>((resolve) => unixServer.close(() => resolve()));
});

const network = { allowAddresses: ['127.0.0.1'], allowedDomains: ['127.0.0.1'] };

/** Each attempt prints `<name>: reached` or `<name>: refused`. */
function attempts(path: string): string {
  return [
    `python3 -c "import socket; s = socket.socket(socket.AF_UNIX); s.connect('${path}'); print(s.recv(64))" >/dev/null 2>&1 && echo 'python: reached' || echo 'python: refused'`,
    `socat -u UNIX-CONNECT:${path} - >/dev/null 2>&1 && echo 'socat: reached' || echo 'socat: refused'`,
    `curl -sS --max-time 20 --unix-socket ${path} http://x/ >/dev/null 2>&1 && echo 'curl: reached' || echo 'curl: refused'`,
  ].join('\n');
}

describe.runIf(status.ok || status.required)('unix sockets with the network through the egress proxy', () => {
  it('reaches no host unix socket by path, with python, socat or curl, while the proxy still works', async () => {
    const t = await host({ sandbox: { network } });
    const before = unixConnections;
    const command = `${attempts(hostSocket)}\nenv -u NO_PROXY -u no_proxy curl -sS --max-time 60 http://127.0.0.1:${webPort}/`;
    const out = okOutput(await t.call('bash', { command }));
    expect(out.stdout.trim().split('\n')).toEqual(['python: refused', 'socat: refused', 'curl: refused', 'through the proxy']);
    expect(unixConnections).toBe(before);
  });

  it("reaches neither the proxy's own socket nor the call's when they are in sight", async () => {
    // In sight (the root is read-only inside) but outside the workspace: a socket folder the command may write is refused.
    const directory = join(visible, 'egress-sockets');
    const t = await host({ sandbox: { network: { ...network, socketDirectory: directory } } });
    const command = `${attempts(join(directory, 'egress.sock'))}\n${attempts(join(directory, 'call-1.sock'))}`;
    const out = okOutput(await t.call('bash', { command }));
    const refused = ['python: refused', 'socat: refused', 'curl: refused'];
    expect(out.stdout.trim().split('\n')).toEqual([...refused, ...refused]);
  });

  it('cannot even open a unix socket: socket(AF_UNIX) fails with EPERM, socketpair still works', async () => {
    const t = await host({ sandbox: { network } });
    const script = [
      'import errno, socket',
      'a, b = socket.socketpair(); a.send(b"pair"); print(b.recv(4).decode())',
      'try:',
      '    socket.socket(socket.AF_UNIX)',
      '    print("opened")',
      'except PermissionError as e:',
      '    print("EPERM" if e.errno == errno.EPERM else e)',
    ].join('\n');
    const out = okOutput(await t.call('bash', { command: `python3 -c '${script}'` }));
    expect(out.stdout.trim().split('\n')).toEqual(['pair', 'EPERM']);
  });

  it('fails NETWORK_RELAY_FAILED without running the command when the relay cannot start', async () => {
    const t = await host({ sandbox: { network: { ...network, relayPath: '/bin/false' } } });
    const error = errorOf(await t.call('bash', { command: `touch ${join(ws, 'ran-without-relay')}` }));
    expect(error.code).toBe('NETWORK_RELAY_FAILED');
    expect(error.message).toContain('did not run');
    expect(existsSync(join(ws, 'ran-without-relay'))).toBe(false);
  });
});
