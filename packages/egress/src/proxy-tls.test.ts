import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer, connect as tlsConnect } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Cleanup, closed, connectVia, curl, recorder, startRelay, startTestProxy, tableResolver } from './fixtures/harness.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

let cert: { key: Buffer; cert: Buffer };
let certDir: string;
beforeAll(() => {
  certDir = mkdtempSync(join(tmpdir(), 'egress-cert-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-keyout',
      join(certDir, 'key.pem'),
      '-out',
      join(certDir, 'cert.pem'),
      '-subj',
      '/CN=allowed.test',
      '-addext',
      'subjectAltName=DNS:allowed.test,DNS:evil.test',
    ],
    { stdio: 'ignore' },
  );
  cert = { key: readFileSync(join(certDir, 'key.pem')), cert: readFileSync(join(certDir, 'cert.pem')) };
});
afterAll(() => rmSync(certDir, { recursive: true, force: true }));

async function setup() {
  const handshakes: string[] = [];
  const server = createTlsServer(cert, (socket) => {
    handshakes.push(String((socket as { servername?: unknown }).servername));
    socket.end('HTTP/1.1 200 OK\r\nContent-Length: 6\r\nConnection: close\r\n\r\nsecret');
  });
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.add(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise((resolve) => server.close(resolve));
  });
  const port = (server.address() as { port: number }).port;
  const log = recorder();
  const resolve = tableResolver({ 'allowed.test': ['127.0.0.1'] });
  const decide = (d: { host: string }) => (d.host === 'allowed.test' ? 'allow' : 'deny') as 'allow' | 'deny';
  const { proxy } = await startTestProxy(cleanup, { decide, resolve, allowAddresses: ['127.0.0.1'], onConnection: log.onConnection });
  const call = await proxy.openCall('c');
  return { port, handshakes, log, proxy, call };
}

describe('TLS through a CONNECT tunnel', () => {
  it('ends a tunnel to an allowed name whose ClientHello names another host (domain fronting by SNI)', async () => {
    const { port, handshakes, log, proxy, call } = await setup();
    const tunnel = await connectVia(proxy.socketPath, `allowed.test:${port}`, call.token);
    expect(tunnel.status).toBe(200);
    const tls = tlsConnect({ socket: tunnel.socket, servername: 'evil.test', rejectUnauthorized: false });
    const failed = new Promise<string>((resolve) => {
      tls.once('error', (error) => resolve(error.message));
      tls.once('secureConnect', () => resolve('handshake completed'));
    });
    expect(await failed).not.toBe('handshake completed');
    expect(await log.next(() => true)).toMatchObject({ decision: 'deny', decidedBy: 'egress', code: 'EGRESS_SNI_MISMATCH', bytesUp: 0 });
    expect(handshakes).toEqual([]);
  });

  it('carries a TLS session whose SNI is the tunnel host', async () => {
    const { port, handshakes, log, proxy, call } = await setup();
    const tunnel = await connectVia(proxy.socketPath, `allowed.test:${port}`, call.token);
    const tls = tlsConnect({ socket: tunnel.socket, servername: 'allowed.test', rejectUnauthorized: false });
    let text = '';
    tls.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    await closed(tls);
    expect(text).toContain('secret');
    expect(handshakes).toEqual(['allowed.test']);
    expect(await log.next(() => true)).toMatchObject({ decision: 'allow', host: 'allowed.test' });
  });

  it('serves curl over https through a relay, and refuses curl when the URL names a host the tunnel does not', async () => {
    const { port, proxy, call } = await setup();
    const relay = await startRelay(cleanup, proxy.socketPath);
    const proxyUrl = `http://${call.token}:x@127.0.0.1:${relay}`;
    const ok = await curl(['--insecure', '--proxy', proxyUrl, `https://allowed.test:${port}/`]);
    expect(ok).toMatchObject({ code: 0, stdout: 'secret' });
    // --connect-to makes curl CONNECT to allowed.test while its TLS names evil.test.
    const fronted = await curl([
      '--insecure',
      '--proxy',
      proxyUrl,
      '--connect-to',
      `evil.test:${port}:allowed.test:${port}`,
      `https://evil.test:${port}/`,
    ]);
    expect(fronted.code).not.toBe(0);
    expect(fronted.stdout).toBe('');
  });
});
