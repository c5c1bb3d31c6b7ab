import { createSocket, type Socket } from 'node:dgram';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashHosts, bwrapStatus, okOutput, trackProcesses, workspace } from './fixtures/support.js';

// The egress proxy carries TCP (HTTP, CONNECT, SOCKS5) only. Everything else a command might try
// must find no way out: UDP (DNS included) and raw or packet sockets.

const status = await bwrapStatus();
const ws = workspace();
const { env } = trackProcesses();
const host = bashHosts({ cwd: ws, sandbox: { provider: 'bwrap' } }, env);

/** A UDP listener on the host's loopback, counting what reaches it. */
let udp: Socket;
let udpPort = 0;
let leaks = 0;
let marked: (() => void) | undefined;
beforeAll(async () => {
  udp = createSocket('udp4');
  udp.on('message', (message) => {
    if (message.toString() === 'marker') marked?.();
    else leaks += 1;
  });
  await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
  udpPort = udp.address().port;
});
afterAll(() => new Promise<void>((resolve) => udp.close(() => resolve())));

const network = { allowAddresses: ['127.0.0.1'], allowedDomains: ['127.0.0.1'] };

/** The host's own non-loopback IPv4 addresses: from inside, each must be unreachable. */
const hostAddresses = Object.values(networkInterfaces())
  .flat()
  .filter((a) => a !== undefined && a.family === 'IPv4' && !a.internal)
  .map((a) => a?.address as string);

describe.runIf(status.ok || status.required)('other protocols with the network through the egress proxy', () => {
  it("sends no UDP datagram out: the host's loopback is not the sandbox's, and no other address is routed", async () => {
    const t = await host({ sandbox: { network } });
    const script = [
      'import socket, sys',
      `targets = [("127.0.0.1", ${udpPort})] + [(a, ${udpPort}) for a in sys.argv[1:]]`,
      'for target in targets:',
      '    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)',
      '    try:',
      '        s.sendto(b"leak", target)',
      '        print(target[0], "sent")',
      '    except OSError as e:',
      '        print(target[0], "refused", e.errno)',
    ].join('\n');
    const out = okOutput(await t.call('bash', { command: `python3 -c '${script}' ${hostAddresses.join(' ')}` }));
    const lines = out.stdout.trim().split('\n');
    // To its own loopback the datagram is sent (and lost: nothing listens there); elsewhere ENETUNREACH (101).
    expect(lines).toEqual(['127.0.0.1 sent', ...hostAddresses.map((a) => `${a} refused 101`)]);
    // The listener's queue is first in, first out: once a marker sent now arrives, a leak sent earlier would have.
    await new Promise<void>((resolve) => {
      marked = resolve;
      const sender = createSocket('udp4');
      sender.send('marker', udpPort, '127.0.0.1', () => sender.close());
    });
    expect(leaks).toBe(0);
  });

  it('opens no raw or packet socket: EPERM', async () => {
    const t = await host({ sandbox: { network } });
    const script = [
      'import socket',
      'for name, args in [("raw", (socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)), ("packet", (socket.AF_PACKET, socket.SOCK_RAW, 0))]:',
      '    try:',
      '        socket.socket(*args)',
      '        print(name, "opened")',
      '    except PermissionError:',
      '        print(name, "EPERM")',
    ].join('\n');
    const out = okOutput(await t.call('bash', { command: `python3 -c '${script}'` }));
    expect(out.stdout.trim().split('\n')).toEqual(['raw EPERM', 'packet EPERM']);
  });
});
