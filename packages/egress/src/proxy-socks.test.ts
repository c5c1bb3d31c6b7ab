import { afterEach, describe, expect, it } from 'vitest';
import { Cleanup, curl, recorder, startOrigin, startRelay, startTestProxy, tableResolver } from './fixtures/harness.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

async function setup() {
  const origin = await startOrigin(cleanup);
  const log = recorder();
  const resolve = tableResolver({ 'allowed.test': ['127.0.0.1'], 'other.test': ['127.0.0.1'] });
  const decide = (d: { host: string }) => (d.host === 'allowed.test' ? 'allow' : 'deny') as 'allow' | 'deny';
  const { proxy, dir } = await startTestProxy(cleanup, { decide, resolve, allowAddresses: ['127.0.0.1'], onConnection: log.onConnection });
  return { origin, log, proxy, dir };
}

describe('SOCKS5', () => {
  it('tunnels curl (socks5h, the token as username) to an allowed name resolved on the proxy', async () => {
    const { origin, log, proxy } = await setup();
    const call = await proxy.openCall('c');
    const relay = await startRelay(cleanup, proxy.socketPath);
    const answer = await curl(['--proxy', `socks5h://${call.token}:x@127.0.0.1:${relay}`, `http://allowed.test:${origin.port}/socks`]);
    expect(answer).toMatchObject({ code: 0, stdout: 'origin /socks' });
    expect(await log.next(() => true)).toMatchObject({ protocol: 'socks5', callId: 'c', host: 'allowed.test', decision: 'allow' });
  });

  it('answers "not allowed by ruleset" for a denied name, and the origin sees nothing', async () => {
    const { origin, log, proxy } = await setup();
    const call = await proxy.openCall('c');
    const relay = await startRelay(cleanup, proxy.socketPath);
    const answer = await curl(['--proxy', `socks5h://${call.token}:x@127.0.0.1:${relay}`, `http://other.test:${origin.port}/`]);
    expect(answer.code).not.toBe(0);
    // curl prints the SOCKS reply code: 2 is "connection not allowed by ruleset".
    expect(answer.stderr).toMatch(/\(2\)|not allowed/);
    expect(origin.accepted()).toBe(0);
    expect(await log.next(() => true)).toMatchObject({ protocol: 'socks5', decision: 'deny', code: 'EGRESS_DENIED' });
  });

  it('refuses a forged SOCKS5 username', async () => {
    const { origin, proxy } = await setup();
    await proxy.openCall('c');
    const relay = await startRelay(cleanup, proxy.socketPath);
    const answer = await curl(['--proxy', `socks5h://forged:x@127.0.0.1:${relay}`, `http://allowed.test:${origin.port}/`]);
    expect(answer.code).not.toBe(0);
    expect(origin.accepted()).toBe(0);
  });

  it('needs no credentials on a call socket (ssh-style clients that cannot send any)', async () => {
    const { origin, proxy, dir } = await setup();
    const call = await proxy.openCall('c', { socketPath: `${dir}/c.sock` });
    const relay = await startRelay(cleanup, call.socketPath ?? '');
    const answer = await curl(['--proxy', `socks5h://127.0.0.1:${relay}`, `http://allowed.test:${origin.port}/own`]);
    expect(answer).toMatchObject({ code: 0, stdout: 'origin /own' });
  });
});
