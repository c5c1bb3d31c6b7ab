import { existsSync, mkdirSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import type { ApprovalRequest, Host, SessionEvent } from '@deepseek-ai/dsh-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashHosts, bwrapStatus, errorOf, okOutput, trackProcesses, workspace } from './fixtures/support.js';
import { toolBash } from './plugin.js';

const status = await bwrapStatus();
const ws = workspace();
const { env } = trackProcesses();
const host = bashHosts({ cwd: ws, sandbox: { provider: 'bwrap' } }, env);

/** The loopback server the proxy connects to: the tests allow 127.0.0.1 explicitly, loopback being restricted by default. */
let server: HttpServer;
let port = 0;
let requests = 0;
beforeAll(async () => {
  server = createHttpServer((_req, res) => {
    requests += 1;
    res.end('hello from the host');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A curl that goes through the proxy to 127.0.0.1 (which NO_PROXY would otherwise send straight to the sandbox's own loopback). */
const curl = (path = '/') => `env -u NO_PROXY -u no_proxy curl -sS --max-time 60 http://127.0.0.1:${port}${path}`;
const loopbackOnly = { allowAddresses: ['127.0.0.1'] };

function eventsOf(h: Host, type: string, call?: string): SessionEvent[] {
  return h.events.list().filter((e) => e.type === type && (call === undefined || e.call === call));
}

describe.runIf(status.ok || status.required)('bash network through the egress proxy', () => {
  it('reaches an allowed destination and logs network/connect under the call, before its result', async () => {
    const t = await host({ sandbox: { network: { ...loopbackOnly, allowedDomains: ['127.0.0.1'] } } });
    const before = requests;
    const out = okOutput(await t.call('bash', { command: curl() }, 'allowed-1'));
    expect(out.stdout).toBe('hello from the host');
    expect(requests).toBe(before + 1);
    const [connect] = eventsOf(t.host, 'network/connect', 'allowed-1');
    expect(connect?.data).toMatchObject({
      protocol: 'http-forward',
      host: '127.0.0.1',
      port,
      decision: 'allow',
      decidedBy: 'allowedDomains 127.0.0.1',
    });
    expect((connect?.data as { bytesDown: number } | undefined)?.bytesDown).toBeGreaterThan(0);
    const log = t.host.events
      .list()
      .filter((e) => e.call === 'allowed-1')
      .map((e) => e.type);
    expect(log.indexOf('network/connect')).toBeLessThan(log.indexOf('tool/result'));
  });

  it('sets the proxy variables the peers set, pointing at the relay inside', async () => {
    const t = await host({ sandbox: { network: loopbackOnly } });
    const out = okOutput(await t.call('bash', { command: 'echo "$HTTPS_PROXY|$ALL_PROXY|$NO_PROXY|$GIT_SSH_COMMAND"' }));
    expect(out.stdout.trim()).toBe(
      "http://127.0.0.1:3128|socks5h://127.0.0.1:3128|localhost,127.0.0.1,::1|ssh -o ProxyCommand='socat - PROXY:127.0.0.1:%h:%p,proxyport=3128'",
    );
  });

  it('tunnels CONNECT and SOCKS5 as well', async () => {
    const t = await host({ sandbox: { network: { ...loopbackOnly, allowedDomains: ['127.0.0.1'] } } });
    const out = okOutput(
      await t.call('bash', { command: `${curl()} --proxytunnel; echo; env -u HTTP_PROXY -u http_proxy ${curl()}` }, 'tunnels'),
    );
    expect(out.stdout).toBe('hello from the host\nhello from the host');
    expect(eventsOf(t.host, 'network/connect', 'tunnels').map((e) => (e.data as { protocol: string }).protocol)).toEqual([
      'http-connect',
      'socks5',
    ]);
  });

  it('refuses a denied destination, even one the allowed list names, and never reaches it', async () => {
    const t = await host({
      sandbox: { network: { ...loopbackOnly, allowedDomains: ['127.0.0.1'], deniedDomains: [`127.0.0.1:${port}`] } },
    });
    const before = requests;
    const out = okOutput(await t.call('bash', { command: `${curl()} -o /dev/null -w '%{http_code}'` }, 'denied-1'));
    expect(out.stdout).toBe('403');
    expect(requests).toBe(before);
    // (egress records a refused forwarded request twice today: its http-front records before `refuse`, which records again)
    expect(eventsOf(t.host, 'network/connect', 'denied-1')[0]?.data).toMatchObject({
      decision: 'deny',
      decidedBy: `deniedDomains 127.0.0.1:${port}`,
      code: 'EGRESS_DENIED',
    });
  });

  it("takes the host policy's denied domains as well as the option's", async () => {
    const t = await host({ sandbox: { network: { ...loopbackOnly, allowedDomains: ['127.0.0.1'] } } });
    t.host.sandboxPolicy.contribute('test-rules', () => ({ network: { deniedDomains: ['127.0.0.1'] } }));
    const out = okOutput(await t.call('bash', { command: `${curl()} -o /dev/null -w '%{http_code}'` }, 'host-denied'));
    expect(out.stdout).toBe('403');
    expect(eventsOf(t.host, 'network/connect', 'host-denied')[0]?.data).toMatchObject({
      decision: 'deny',
      decidedBy: 'deniedDomains 127.0.0.1',
    });
  });

  it('asks the approval provider once, naming the bash call, for a destination no list decides', async () => {
    const asked: ApprovalRequest[] = [];
    const t = await host(
      { sandbox: { network: loopbackOnly } },
      {
        approval: (request) => {
          asked.push(request);
          return 'allowed-once';
        },
      },
    );
    const out = okOutput(await t.call('bash', { command: `${curl()}; echo; ${curl()}` }, 'asks-1'));
    expect(out.stdout).toBe('hello from the host\nhello from the host');
    expect(asked.map((r) => [r.tool.name, r.args])).toEqual([
      ['bash_network', { host: '127.0.0.1', port, protocol: 'http-forward', call: 'asks-1' }],
    ]);
    expect(asked[0]?.reason).toContain('bash call asks-1');
    expect(eventsOf(t.host, 'network/connect', 'asks-1').map((e) => e.data)).toEqual([
      expect.objectContaining({ decision: 'allow', decidedBy: 'approval' }),
      expect.objectContaining({ decision: 'allow', decidedBy: 'approval' }),
    ]);
  });

  it("leaves a destination to a tap that decided it, and asks where none did, though the host's default is allow", async () => {
    const asked: unknown[] = [];
    const t = await host(
      { sandbox: { network: loopbackOnly } },
      {
        defaultDecision: 'allow',
        approval: (request) => {
          asked.push(request.args);
          return 'rejected';
        },
      },
    );
    t.host.hooks.preExecute.tap('a-policy', (state, info) =>
      info.tool.name === 'bash_network' && (state.args as { host: string }).host === '127.0.0.1' ? { decision: 'allow' } : undefined,
    );
    const other = `env -u NO_PROXY -u no_proxy curl -sS --max-time 60 -o /dev/null -w '%{http_code}' http://localhost:${port}/`;
    const out = okOutput(await t.call('bash', { command: `${curl()}; echo; ${other}` }));
    expect(out.stdout).toBe('hello from the host\n403');
    expect(asked).toEqual([expect.objectContaining({ host: 'localhost' })]);
  });

  it('refuses the destination when the user rejects it', async () => {
    const t = await host({ sandbox: { network: loopbackOnly } }, { approval: () => 'rejected' });
    const before = requests;
    const out = okOutput(await t.call('bash', { command: `${curl()} -o /dev/null -w '%{http_code}'` }, 'rejected-1'));
    expect(out.stdout).toBe('403');
    expect(requests).toBe(before);
    expect(eventsOf(t.host, 'network/connect', 'rejected-1')[0]?.data).toMatchObject({ decision: 'deny', code: 'EGRESS_DENIED' });
  });

  it('has no network interface but loopback: a direct connection fails', async () => {
    const t = await host({ sandbox: { network: { ...loopbackOnly, allowedDomains: ['127.0.0.1'] } } });
    const before = requests;
    const out = okOutput(
      await t.call('bash', {
        command: `tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '; curl -sS --noproxy '*' --max-time 20 http://127.0.0.1:${port}/ || echo direct-failed`,
      }),
    );
    expect(out.stdout.trim().split('\n')).toEqual(['lo', 'direct-failed']);
    expect(requests).toBe(before);
  });

  it('closes the tunnels of a call when the call ends', async () => {
    const held: Socket[] = [];
    const closed: Promise<void>[] = [];
    const holder: Server = createServer((socket) => {
      held.push(socket);
      closed.push(new Promise((resolve) => socket.once('close', () => resolve())));
      socket.write('ready\n');
    });
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const holderPort = (holder.address() as { port: number }).port;
    try {
      const t = await host({ sandbox: { network: { ...loopbackOnly, allowedDomains: ['127.0.0.1'] } } });
      // A tunnel left open in the background: the call ends while it is up.
      const command = [
        'exec 5<>/dev/tcp/127.0.0.1/3128',
        `printf 'CONNECT 127.0.0.1:${holderPort} HTTP/1.1\\r\\nHost: 127.0.0.1:${holderPort}\\r\\n\\r\\n' >&5`,
        'read -r status <&5; echo "$status"',
        'while read -r line <&5; do [ "$line" = ready ] && break; done; echo tunnel-up',
      ].join('\n');
      const out = okOutput(await t.call('bash', { command }, 'holds-1'));
      expect(out.stdout).toContain('tunnel-up');
      await Promise.all(closed);
      expect(held).toHaveLength(1);
      expect(eventsOf(t.host, 'network/connect', 'holds-1')[0]?.data).toMatchObject({ protocol: 'http-connect', decision: 'allow' });
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  });

  it('refuses a network call with a clear error when the relay is not installed, without running the command', async () => {
    const t = await host({ sandbox: { network: { relayPath: '/nonexistent/socat' } } });
    const error = errorOf(await t.call('bash', { command: `touch ${join(ws, 'ran')}` }));
    expect(error.code).toBe('NETWORK_RELAY_MISSING');
    expect(error.message).toContain('/nonexistent/socat');
    expect(existsSync(join(ws, 'ran'))).toBe(false);
  });

  it('answers a proxy socket already in use with its code', async () => {
    const directory = join(ws, 'sockets');
    mkdirSync(directory);
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(join(directory, 'egress.sock'), resolve));
    try {
      const t = await host({ sandbox: { network: { socketDirectory: directory } } });
      expect(errorOf(await t.call('bash', { command: 'true' })).code).toBe('EGRESS_SOCKET_IN_USE');
    } finally {
      await new Promise<void>((resolve) => squatter.close(() => resolve()));
    }
  });
});

describe('sandbox.network options', () => {
  it('refuses a domain pattern that cannot match, naming the entry', () => {
    expect(() => toolBash({ sandbox: { network: { allowedDomains: ['example.com', 'a.*.com'] } } })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS', message: expect.stringContaining('sandbox.network.allowedDomains.1') }),
    );
    expect(() => toolBash({ sandbox: { network: { deniedDomains: ['*'] } } })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS', message: expect.stringContaining('sandbox.network.deniedDomains.0') }),
    );
  });

  it('keeps true and false meaning the host network and none', () => {
    expect(() => toolBash({ sandbox: { network: true } })).not.toThrow();
    expect(() => toolBash({ sandbox: { network: 'proxy' as never } })).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
  });
});
