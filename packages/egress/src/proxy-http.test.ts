import { afterEach, describe, expect, it } from 'vitest';
import { domainPolicy } from './domain-policy.js';
import { EgressErrorCode } from './errors.js';
import {
  basic,
  Cleanup,
  closed,
  connectVia,
  curl,
  rawRequest,
  recorder,
  startOrigin,
  startRelay,
  startTestProxy,
  tableResolver,
} from './fixtures/harness.js';
import type { EgressDecider } from './types.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** A decider from a domain policy: unlisted destinations are denied (an unattended run). */
function policyDecider(allowedDomains: string[], deniedDomains: string[] = []): EgressDecider & { asked: string[] } {
  const policy = domainPolicy({ allowedDomains, deniedDomains });
  const asked: string[] = [];
  const decide: EgressDecider = (destination) => {
    asked.push(`${destination.host}:${destination.port}`);
    const verdict = policy.check(destination);
    return verdict.verdict === 'allow'
      ? { decision: 'allow', by: `allowedDomains ${verdict.pattern}` }
      : { decision: 'deny', by: verdict.verdict === 'deny' ? `deniedDomains ${verdict.pattern}` : 'unlisted' };
  };
  return Object.assign(decide, { asked });
}

async function setup(allowed = ['allowed.test'], denied: string[] = []) {
  const origin = await startOrigin(cleanup);
  const log = recorder();
  const decide = policyDecider(allowed, denied);
  const resolve = tableResolver({ 'allowed.test': ['127.0.0.1'], 'other.test': ['127.0.0.1'], 'api.allowed.test': ['127.0.0.1'] });
  const { proxy } = await startTestProxy(cleanup, { decide, resolve, allowAddresses: ['127.0.0.1'], onConnection: log.onConnection });
  const call = await proxy.openCall('call-1');
  return { origin, log, decide, resolve, proxy, call };
}

describe('HTTP CONNECT', () => {
  it('tunnels to an allowed destination and records who decided and the bytes each way', async () => {
    const { origin, log, proxy, call } = await setup();
    const { status, socket } = await connectVia(proxy.socketPath, `allowed.test:${origin.port}`, call.token);
    expect(status).toBe(200);
    socket.resume();
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.end('GET /hello HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n\r\n');
    const record = await log.next((r) => r.protocol === 'http-connect');
    await closed(socket);
    expect(Buffer.concat(chunks).toString()).toContain('origin /hello');
    expect(record).toMatchObject({
      callId: 'call-1',
      host: 'allowed.test',
      port: origin.port,
      address: '127.0.0.1',
      decision: 'allow',
      decidedBy: 'allowedDomains allowed.test',
    });
    expect(record.code).toBeUndefined();
    expect(record.bytesUp).toBeGreaterThan(40);
    expect(record.bytesDown).toBeGreaterThan(40);
  });

  it('refuses a destination the policy denies with 403, and the origin never sees a connection', async () => {
    const { origin, log, proxy, call } = await setup();
    const { status, head } = await connectVia(proxy.socketPath, `other.test:${origin.port}`, call.token);
    expect(status).toBe(403);
    expect(head).toContain(`X-Egress-Code: ${EgressErrorCode.EGRESS_DENIED}`);
    expect(origin.accepted()).toBe(0);
    expect(await log.next(() => true)).toMatchObject({
      host: 'other.test',
      decision: 'deny',
      decidedBy: 'unlisted',
      code: 'EGRESS_DENIED',
    });
  });

  it('asks once per call and destination, and never resolves a denied name', async () => {
    const { origin, decide, resolve, proxy, call } = await setup();
    for (let i = 0; i < 3; i++) (await connectVia(proxy.socketPath, `allowed.test:${origin.port}`, call.token)).socket.destroy();
    await connectVia(proxy.socketPath, `other.test:${origin.port}`, call.token);
    expect(decide.asked).toEqual([`allowed.test:${origin.port}`, `other.test:${origin.port}`]);
    expect(resolve.asked).not.toContain('other.test');
  });

  it('refuses a CONNECT whose Host header names another host, before deciding', async () => {
    const { origin, decide, proxy, call } = await setup();
    const answer = await connectVia(proxy.socketPath, `allowed.test:${origin.port}`, call.token, [`Host: other.test:${origin.port}`]);
    expect(answer.status).toBe(400);
    expect(answer.head).toContain('EGRESS_HOST_MISMATCH');
    expect(decide.asked).toEqual([]);
  });

  it('gives a relayed CONNECT the same answer as a direct one (claude-code#87381)', async () => {
    const { origin, proxy, call } = await setup();
    const relayPort = await startRelay(cleanup, proxy.socketPath);
    const proxyUrl = `http://${call.token}:x@127.0.0.1:${relayPort}`;
    const denied = await curl([
      '--proxytunnel',
      '--proxy',
      proxyUrl,
      '--write-out',
      '%{http_connect}',
      `http://other.test:${origin.port}/`,
    ]);
    expect(denied.stdout).toContain('403');
    expect(denied.code).not.toBe(0);
    expect(origin.accepted()).toBe(0);
    const allowed = await curl(['--proxytunnel', '--proxy', proxyUrl, `http://allowed.test:${origin.port}/via-relay`]);
    expect(allowed).toMatchObject({ code: 0, stdout: 'origin /via-relay' });
  });
});

describe('HTTP forwarding of plain http', () => {
  it('forwards an absolute-form request to an allowed host and strips the proxy credentials', async () => {
    const { origin, log, proxy, call } = await setup();
    const relayPort = await startRelay(cleanup, proxy.socketPath);
    const answer = await curl(['--proxy', `http://${call.token}:x@127.0.0.1:${relayPort}`, `http://allowed.test:${origin.port}/page?q=1`]);
    expect(answer).toMatchObject({ code: 0, stdout: 'origin /page?q=1' });
    expect(origin.requests[0]?.headers['proxy-authorization']).toBeUndefined();
    expect(origin.requests[0]?.headers.host).toBe(`allowed.test:${origin.port}`);
    expect(await log.next((r) => r.protocol === 'http-forward')).toMatchObject({ decision: 'allow', bytesDown: 'origin /page?q=1'.length });
  });

  it('records a refused plain-http request once', async () => {
    const { origin, log, proxy, call } = await setup();
    const relayPort = await startRelay(cleanup, proxy.socketPath);
    const proxyUrl = `http://${call.token}:x@127.0.0.1:${relayPort}`;
    const refused = await curl(['-o', '/dev/null', '-w', '%{http_code}', '--proxy', proxyUrl, `http://other.test:${origin.port}/`]);
    expect(refused.stdout).toBe('403');

    expect(origin.accepted()).toBe(0);
    await log.next((r) => r.protocol === 'http-forward');
    // A second request on a new connection closes the window in which a duplicate of the first could still arrive.
    await curl(['--proxy', `http://${call.token}:x@127.0.0.1:${relayPort}`, `http://allowed.test:${origin.port}/`]);
    await log.next((r) => r.protocol === 'http-forward' && r.host === 'allowed.test');
    expect(log.records.filter((r) => r.host === 'other.test')).toHaveLength(1);
  });

  it('refuses a request whose Host header differs from its absolute-form URL', async () => {
    const { origin, proxy, call } = await setup();
    const answer = await rawRequest(
      proxy.socketPath,
      `GET http://allowed.test:${origin.port}/ HTTP/1.1\r\nHost: other.test:${origin.port}\r\nProxy-Authorization: ${basic(call.token)}\r\n\r\n`,
    );
    expect(answer.status).toBe(400);
    expect(answer.head.toLowerCase()).toContain('x-egress-code: egress_host_mismatch');
    expect(origin.accepted()).toBe(0);
  });

  it('refuses an origin-form request: the proxy is not a web server', async () => {
    const { proxy, call } = await setup();
    const answer = await rawRequest(
      proxy.socketPath,
      `GET / HTTP/1.1\r\nHost: allowed.test\r\nProxy-Authorization: ${basic(call.token)}\r\n\r\n`,
    );
    expect(answer.status).toBe(400);
  });

  it('judges each request of a kept-alive connection on its own', async () => {
    const { origin, proxy, call } = await setup();
    const auth = `Proxy-Authorization: ${basic(call.token)}`;
    const first = await rawRequest(
      proxy.socketPath,
      `GET http://allowed.test:${origin.port}/a HTTP/1.1\r\nHost: allowed.test:${origin.port}\r\n${auth}\r\n\r\n`,
    );
    expect(first.status).toBe(200);
    first.socket.resume();
    const second = await new Promise<string>((resolve) => {
      let text = '';
      first.socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('latin1');
        if (text.includes('\r\n\r\n')) resolve(text);
      });
      first.socket.write(`GET http://other.test:${origin.port}/b HTTP/1.1\r\nHost: other.test:${origin.port}\r\n${auth}\r\n\r\n`);
    });
    expect(second).toMatch(/^HTTP\/1\.1 403/);
    expect(origin.requests.map((r) => r.url)).toEqual(['/a']);
  });
});
