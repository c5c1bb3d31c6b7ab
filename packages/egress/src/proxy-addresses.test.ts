import { afterEach, describe, expect, it } from 'vitest';
import { Cleanup, connectVia, recorder, startOrigin, startTestProxy, tableResolver } from './fixtures/harness.js';
import type { EgressDestination } from './types.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe('addresses the proxy refuses whatever the decider says', () => {
  it.each([
    ['127.0.0.1', 'dotted'],
    ['2130706433', 'decimal'],
    ['0177.0.0.1', 'octal'],
    ['0x7f.1', 'hex'],
    ['127.1', 'short'],
    ['[::1]', 'IPv6 loopback'],
    ['[::ffff:127.0.0.1]', 'IPv4-mapped IPv6'],
    ['[::ffff:7f00:1]', 'IPv4-mapped IPv6 in hex'],
    ['169.254.169.254', 'cloud metadata'],
    ['[64:ff9b::a9fe:a9fe]', 'metadata through NAT64'],
    ['10.1.2.3', 'private'],
  ])('refuses the IP literal %s (%s) as loopback, link-local, metadata or private', async (host) => {
    const origin = await startOrigin(cleanup);
    const log = recorder();
    const { proxy } = await startTestProxy(cleanup, { decide: () => 'allow', resolve: tableResolver({}), onConnection: log.onConnection });
    const call = await proxy.openCall('c');
    const answer = await connectVia(proxy.socketPath, `${host}:${origin.port}`, call.token, []);
    expect(answer.status).toBe(403);
    expect(answer.head).toContain('EGRESS_BLOCKED_ADDRESS');
    expect(origin.accepted()).toBe(0);
    expect(await log.next(() => true)).toMatchObject({ decision: 'deny', decidedBy: 'egress', code: 'EGRESS_BLOCKED_ADDRESS' });
  });

  it('decides a literal in its canonical form, so no spelling passes a rule on another', async () => {
    const asked: string[] = [];
    const { proxy } = await startTestProxy(cleanup, {
      decide: (destination: EgressDestination) => {
        asked.push(`${destination.kind} ${destination.host}`);
        return 'deny';
      },
    });
    const call = await proxy.openCall('c');
    for (const host of ['2130706433', '0177.0.0.1', '[::FFFF:127.0.0.1]']) await connectVia(proxy.socketPath, `${host}:80`, call.token, []);
    expect(asked).toEqual(['ipv4 127.0.0.1', 'ipv6 ::ffff:7f00:1']);
  });

  it.each([
    ['loopback', '127.0.0.2'],
    ['link-local', '169.254.10.1'],
    ['metadata', '169.254.169.254'],
    ['private', '192.168.1.1'],
    ['unique-local IPv6', 'fd12::1'],
  ])('refuses an allowed name that resolves to a %s address', async (range, address) => {
    const origin = await startOrigin(cleanup);
    const { proxy } = await startTestProxy(cleanup, { decide: () => 'allow', resolve: tableResolver({ 'inside.test': [address] }) });
    const call = await proxy.openCall('c');
    const answer = await connectVia(proxy.socketPath, `inside.test:${origin.port}`, call.token, []);
    expect(answer.status).toBe(403);
    expect(answer.rest.toString()).toContain(range.split(' ')[0] === 'unique-local' ? 'private' : range);
  });

  it('refuses a name whose answers mix a public and an internal address', async () => {
    const { proxy } = await startTestProxy(cleanup, {
      decide: () => 'allow',
      resolve: tableResolver({ 'mixed.test': ['93.184.216.34', '127.0.0.1'] }),
    });
    const call = await proxy.openCall('c');
    expect((await connectVia(proxy.socketPath, 'mixed.test:443', call.token, [])).status).toBe(403);
  });

  it('reaches a restricted address that allowAddresses names, and only that one', async () => {
    const origin = await startOrigin(cleanup);
    const resolve = tableResolver({ 'dev.test': ['127.0.0.1'], 'near.test': ['127.0.0.2'] });
    const { proxy } = await startTestProxy(cleanup, { decide: () => 'allow', resolve, allowAddresses: ['127.0.0.1/32'] });
    const call = await proxy.openCall('c');
    const reached = await connectVia(proxy.socketPath, `dev.test:${origin.port}`, call.token, []);
    expect(reached.status).toBe(200);
    reached.socket.destroy();
    expect((await connectVia(proxy.socketPath, `near.test:${origin.port}`, call.token, [])).status).toBe(403);
  });
});

describe('DNS rebinding', () => {
  it('resolves once per connection on the proxy, checks, and connects to the checked address', async () => {
    const origin = await startOrigin(cleanup);
    const answers = [['127.0.0.1'], ['169.254.169.254']];
    const resolve = tableResolver({ 'rebind.test': () => answers.shift() ?? ['169.254.169.254'] });
    const log = recorder();
    const { proxy } = await startTestProxy(cleanup, {
      decide: () => 'allow',
      resolve,
      allowAddresses: ['127.0.0.1'],
      onConnection: log.onConnection,
    });
    const call = await proxy.openCall('c');
    const first = await connectVia(proxy.socketPath, `rebind.test:${origin.port}`, call.token, []);
    expect(first.status).toBe(200);
    first.socket.end(`GET /pinned HTTP/1.1\r\nHost: rebind.test\r\nConnection: close\r\n\r\n`);
    first.socket.resume();
    const record = await log.next((r) => r.decision === 'allow');
    expect(record.address).toBe('127.0.0.1');
    expect(resolve.asked).toEqual(['rebind.test']);
    // The name now points at the metadata service: a new connection is checked again and refused.
    const second = await connectVia(proxy.socketPath, `rebind.test:${origin.port}`, call.token, []);
    expect(second.status).toBe(403);
    expect(second.head).toContain('EGRESS_BLOCKED_ADDRESS');
    expect(resolve.asked).toEqual(['rebind.test', 'rebind.test']);
    expect(origin.requests.map((r) => r.url)).toEqual(['/pinned']);
  });
});
