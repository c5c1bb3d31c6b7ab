import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebErrorCode } from './errors.js';
import { fakeResolver } from './fixtures/server.js';
import { toolWeb } from './index.js';

// A self-signed certificate for `site.test` only, made for these tests (see fixtures/).
const cert = readFileSync(new URL('./fixtures/tls-cert.pem', import.meta.url), 'utf8');
const key = readFileSync(new URL('./fixtures/tls-key.pem', import.meta.url), 'utf8');

let server: Server;
let port = 0;
const servernames: (string | false)[] = [];
beforeAll(async () => {
  server = createServer({ key, cert }, (_req, res) => {
    res.setHeader('content-type', 'text/plain');
    res.end('secure hello');
  });
  server.on('secureConnection', (socket: TLSSocket) => servernames.push((socket as TLSSocket & { servername: string | false }).servername));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const resolver = () => fakeResolver({ 'site.test': '127.0.0.1', 'other.test': '127.0.0.1' });

describe('HTTPS to a pinned address', () => {
  it('sends the host name for SNI and verifies the certificate against it, while connecting to the checked address', async () => {
    const t = await createTestHost({
      plugins: [toolWeb({ allow: ['site.test', 'other.test'], ports: [port], resolver: resolver(), ca: cert })],
    });
    expect(await t.call('web_fetch', { url: `https://site.test:${port}/` })).toMatchObject({
      status: 'ok',
      output: { content: 'secure hello' },
    });
    expect(servernames.at(-1)).toBe('site.test');
    // Same address, another name: the certificate does not cover it, so the pin cannot be used to skip verification.
    expect(await t.call('web_fetch', { url: `https://other.test:${port}/` })).toMatchObject({
      status: 'error',
      error: { code: WebErrorCode.CONNECTION_FAILED, data: { os: 'ERR_TLS_CERT_ALTNAME_INVALID' } },
    });
  });

  it('refuses a certificate no trusted authority signed', async () => {
    const t = await createTestHost({ plugins: [toolWeb({ allow: ['site.test'], ports: [port], resolver: resolver() })] });
    expect(await t.call('web_fetch', { url: `https://site.test:${port}/` })).toMatchObject({
      status: 'error',
      error: { code: WebErrorCode.CONNECTION_FAILED, data: { os: 'DEPTH_ZERO_SELF_SIGNED_CERT' } },
    });
  });
});
