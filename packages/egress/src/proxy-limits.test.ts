import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Cleanup, closed, connectVia, rawRequest, recorder, startOrigin, startTestProxy, tableResolver } from './fixtures/harness.js';
import type { EgressProxy } from './proxy.js';
import type { EgressConnectionInfo, EgressDestination } from './types.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const resolve = tableResolver({ 'allowed.test': ['127.0.0.1'] });

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((done) => setTimeout(done, 10));
}

function openRaw(proxy: EgressProxy): Socket {
  const socket = connect({ path: proxy.socketPath });
  socket.on('error', () => undefined);
  cleanup.add(() => socket.destroy());
  return socket;
}

describe('forged and unattributed requests on the proxy socket', () => {
  it('refuses a CONNECT without a token, or with a forged one, with 407 and records it without a call', async () => {
    const origin = await startOrigin(cleanup);
    const log = recorder();
    const { proxy } = await startTestProxy(cleanup, {
      decide: () => 'allow',
      resolve,
      allowAddresses: ['127.0.0.1'],
      onConnection: log.onConnection,
    });
    await proxy.openCall('c');
    for (const token of [undefined, 'forged-token']) {
      const answer = await connectVia(proxy.socketPath, `allowed.test:${origin.port}`, token);
      expect(answer.status).toBe(407);
      expect(answer.head).toContain('EGRESS_UNKNOWN_CALL');
    }
    expect(origin.accepted()).toBe(0);
    expect(log.records.map((r) => [r.callId, r.code])).toEqual([
      [undefined, 'EGRESS_UNKNOWN_CALL'],
      [undefined, 'EGRESS_UNKNOWN_CALL'],
    ]);
  });

  it('answers bytes that are no request with 400 and closes', async () => {
    const { proxy } = await startTestProxy(cleanup, { decide: () => 'allow' });
    const answer = await rawRequest(proxy.socketPath, '\u0016\u0003\u0001 not http at all\r\n\r\n');
    expect(answer.status).toBe(400);
  });

  it('refuses SOCKS5 without credentials on the shared socket', async () => {
    const { proxy } = await startTestProxy(cleanup, { decide: () => 'allow' });
    const socket = openRaw(proxy);
    const reply = new Promise<Buffer>((done) => socket.once('data', done));
    socket.write(Buffer.from([0x05, 0x01, 0x00]));
    expect([...(await reply)]).toEqual([0x05, 0xff]);
    await closed(socket);
  });
});

describe('bounds against hung and slow clients', () => {
  it('closes a client that connects and sends nothing when the handshake deadline passes', async () => {
    const log = recorder();
    const { proxy } = await startTestProxy(cleanup, {
      decide: () => 'allow',
      limits: { handshakeTimeoutMs: 200 },
      onConnection: log.onConnection,
    });
    const socket = openRaw(proxy);
    await closed(socket);
    expect(await log.next(() => true)).toMatchObject({ code: 'EGRESS_HANDSHAKE_TIMEOUT' });
  });

  it('closes a slowloris client that keeps dribbling header bytes', async () => {
    const { proxy } = await startTestProxy(cleanup, { decide: () => 'allow', limits: { handshakeTimeoutMs: 300 } });
    const socket = openRaw(proxy);
    socket.write('CONNECT allowed.test:80 HTTP/1.1\r\n');
    const dribble = setInterval(() => socket.write('X-a: b\r\n'), 20);
    cleanup.add(() => clearInterval(dribble));
    await closed(socket);
    await until(() => proxy.stats().connections === 0);
  });

  it('closes connections beyond maxPendingConnections at once', async () => {
    const log = recorder();
    const { proxy } = await startTestProxy(cleanup, {
      decide: () => 'allow',
      limits: { maxPendingConnections: 2 },
      onConnection: log.onConnection,
    });
    openRaw(proxy);
    openRaw(proxy);
    await until(() => proxy.stats().pending === 2);
    await closed(openRaw(proxy));
    expect(await log.next(() => true)).toMatchObject({ code: 'EGRESS_TOO_MANY_CONNECTIONS' });
    expect(proxy.stats().pending).toBe(2);
  });

  it('refuses a call its connection beyond maxConnectionsPerCall, and serves it again once one closes', async () => {
    const origin = await startOrigin(cleanup);
    const { proxy } = await startTestProxy(cleanup, {
      decide: () => 'allow',
      resolve,
      allowAddresses: ['127.0.0.1'],
      limits: { maxConnectionsPerCall: 2 },
    });
    const call = await proxy.openCall('c');
    const target = `allowed.test:${origin.port}`;
    const first = await connectVia(proxy.socketPath, target, call.token);
    const second = await connectVia(proxy.socketPath, target, call.token);
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await connectVia(proxy.socketPath, target, call.token);
    expect(third.status).toBe(503);
    expect(third.head).toContain('EGRESS_TOO_MANY_CONNECTIONS');
    first.socket.destroy();
    await until(() => proxy.stats().calls.c === 1);
    expect((await connectVia(proxy.socketPath, target, call.token)).status).toBe(200);
  });

  it('closes a tunnel that carries nothing for idleTimeoutMs', async () => {
    const origin = await startOrigin(cleanup);
    const log = recorder();
    const { proxy } = await startTestProxy(cleanup, {
      decide: () => 'allow',
      resolve,
      allowAddresses: ['127.0.0.1'],
      limits: { idleTimeoutMs: 200 },
      onConnection: log.onConnection,
    });
    const call = await proxy.openCall('c');
    const tunnel = await connectVia(proxy.socketPath, `allowed.test:${origin.port}`, call.token);
    tunnel.socket.resume();
    await closed(tunnel.socket);
    expect(await log.next(() => true)).toMatchObject({ decision: 'allow', code: 'EGRESS_IDLE_TIMEOUT' });
  });
});

describe('the end of a call', () => {
  it('closes every tunnel of the call, and its token opens nothing afterwards', async () => {
    const origin = await startOrigin(cleanup);
    const log = recorder();
    const { proxy } = await startTestProxy(cleanup, {
      decide: () => 'allow',
      resolve,
      allowAddresses: ['127.0.0.1'],
      onConnection: log.onConnection,
    });
    const call = await proxy.openCall('c');
    const other = await proxy.openCall('other');
    const target = `allowed.test:${origin.port}`;
    const tunnels = [await connectVia(proxy.socketPath, target, call.token), await connectVia(proxy.socketPath, target, call.token)];
    const bystander = await connectVia(proxy.socketPath, target, other.token);
    await proxy.closeCall('c');
    await Promise.all(tunnels.map((t) => closed(t.socket)));
    expect(bystander.socket.destroyed).toBe(false);
    expect(log.records.filter((r) => r.callId === 'c').map((r) => r.code)).toEqual(['EGRESS_CALL_CLOSED', 'EGRESS_CALL_CLOSED']);
    expect((await connectVia(proxy.socketPath, target, call.token)).status).toBe(407);
    expect(proxy.stats().calls).toEqual({ other: 1 });
  });

  it('aborts the signal a pending decision holds, and the waiting client is closed', async () => {
    let seen: AbortSignal | undefined;
    const { proxy } = await startTestProxy(cleanup, {
      decide: (_destination: EgressDestination, connection: EgressConnectionInfo) => {
        seen = connection.signal;
        return new Promise((done) => connection.signal.addEventListener('abort', () => done('allow')));
      },
      resolve,
    });
    const call = await proxy.openCall('c');
    const waiting = connectVia(proxy.socketPath, 'allowed.test:80', call.token);
    await until(() => seen !== undefined);
    await proxy.closeCall('c');
    expect(seen?.aborted).toBe(true);
    await expect(waiting).rejects.toThrow(/closed before an answer/);
  });

  it('attributes connections on a call socket without a token, and removes that socket with the call', async () => {
    const origin = await startOrigin(cleanup);
    const log = recorder();
    const { proxy, dir } = await startTestProxy(cleanup, {
      decide: () => 'allow',
      resolve,
      allowAddresses: ['127.0.0.1'],
      onConnection: log.onConnection,
    });
    const call = await proxy.openCall('c', { socketPath: `${dir}/c.sock` });
    expect(call.socketPath).toBe(`${dir}/c.sock`);
    const tunnel = await connectVia(`${dir}/c.sock`, `allowed.test:${origin.port}`, undefined);
    expect(tunnel.status).toBe(200);
    await call.close();
    await closed(tunnel.socket);
    expect(log.records[0]).toMatchObject({ callId: 'c', code: 'EGRESS_CALL_CLOSED' });
    await expect(connectVia(`${dir}/c.sock`, 'allowed.test:80', undefined)).rejects.toThrow();
  });
});

describe('a decider that fails', () => {
  it.each([
    ['throws', () => Promise.reject(new Error('approval store down'))],
    ['answers something else', () => 'yes' as unknown as 'allow'],
  ])('denies when the decider %s', async (_name, decide) => {
    const origin = await startOrigin(cleanup);
    const { proxy } = await startTestProxy(cleanup, { decide, resolve, allowAddresses: ['127.0.0.1'] });
    const call = await proxy.openCall('c');
    const answer = await connectVia(proxy.socketPath, `allowed.test:${origin.port}`, call.token);
    expect(answer.status).toBe(403);
    expect(answer.head).toContain('EGRESS_DECIDE_FAILED');
    expect(origin.accepted()).toBe(0);
  });
});
