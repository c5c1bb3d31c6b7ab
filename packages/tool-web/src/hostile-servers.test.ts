import { brotliCompressSync, constants, deflateRawSync, gzipSync } from 'node:zlib';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { WebErrorCode } from './errors.js';
import { startServer, type TestServer } from './fixtures/server.js';
import { type ToolWebOptions, toolWeb } from './index.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(handler: Parameters<typeof startServer>[0]) {
  const s = await startServer(handler);
  servers.push(s);
  return s;
}

async function hostFor(s: TestServer, options: ToolWebOptions = {}) {
  return createTestHost({ plugins: [toolWeb({ allow: ['127.0.0.1'], ports: [s.port], ...options })] });
}

const MiB = 1024 * 1024;

/** Writes `total` bytes of `chunk`-sized pieces, honouring backpressure; resolves with how much went out before the socket closed. */
function stream(res: import('node:http').ServerResponse, total: number, chunk: Buffer): Promise<number> {
  return new Promise((resolve) => {
    let sent = 0;
    res.once('close', () => resolve(sent));
    const pump = () => {
      while (sent < total && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (sent >= total) res.end();
    };
    pump();
  });
}

describe('bodies that are too big', () => {
  it('stops reading a 50 MB body at the cap and closes the connection', async () => {
    let sent: Promise<number> = Promise.resolve(0);
    const s = await serve((_req, res) => {
      res.setHeader('content-type', 'text/plain');
      sent = stream(res, 50 * MiB, Buffer.alloc(64 * 1024, 'a'));
    });
    const t = await hostFor(s, { maxBytes: MiB });
    const outcome = await t.call('web_fetch', { url: s.url('/big') });
    expect(outcome).toMatchObject({ status: 'error', error: { code: WebErrorCode.BODY_TOO_LARGE, data: { limit: MiB } } });
    await s.closed(1);
    expect(await sent).toBeLessThan(50 * MiB);
  });

  it('refuses a declared Content-Length over the cap without reading the body', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(50 * MiB) });
      res.write('x'.repeat(1024));
      // The rest never comes: a client that waited for it would hang.
    });
    const t = await hostFor(s, { maxBytes: MiB });
    expect(await t.call('web_fetch', { url: s.url('/') })).toMatchObject({
      error: { code: WebErrorCode.BODY_TOO_LARGE, data: { declared: 50 * MiB } },
    });
  });

  it('lets a call lower the cap with max_bytes, but not raise it', async () => {
    const s = await serve((_req, res) => {
      res.setHeader('content-type', 'text/plain');
      res.end('y'.repeat(5_000));
    });
    const t = await hostFor(s, { maxBytes: 10_000 });
    expect(await t.call('web_fetch', { url: s.url('/'), max_bytes: 4_000 })).toMatchObject({
      error: { code: WebErrorCode.BODY_TOO_LARGE },
    });
    expect(await t.call('web_fetch', { url: s.url('/'), max_bytes: 50_000 })).toMatchObject({ status: 'ok', output: { bytes: 5_000 } });
  });
});

describe('compressed bodies', () => {
  const page = '<html><body><p>compressed hello</p></body></html>';

  it.each([
    ['gzip', gzipSync(page)],
    ['br', brotliCompressSync(page)],
    ['deflate', deflateRawSync(page)],
  ])('decompresses %s', async (encoding, body) => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': encoding });
      res.end(body);
    });
    const t = await hostFor(s);
    expect(await t.call('web_fetch', { url: s.url('/') })).toMatchObject({ status: 'ok', output: { content: page } });
  });

  it.each([
    ['gzip', () => gzipSync(Buffer.alloc(32 * MiB), { level: 9 })],
    ['br', () => brotliCompressSync(Buffer.alloc(32 * MiB), { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } })],
  ])('stops a %s bomb at the cap', async (encoding, make) => {
    const bomb = make();
    expect(bomb.length).toBeLessThan(MiB);
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': encoding, 'content-length': bomb.length });
      res.end(bomb);
    });
    const t = await hostFor(s, { maxBytes: 2 * MiB });
    expect(await t.call('web_fetch', { url: s.url('/') })).toMatchObject({
      status: 'error',
      error: { code: WebErrorCode.BODY_TOO_LARGE, data: { limit: 2 * MiB, compressed: true } },
    });
  });

  it.each([
    ['a corrupt gzip body', 'gzip', Buffer.from('this is not gzip at all, not even close')],
    ['a truncated gzip body', 'gzip', gzipSync('x'.repeat(10_000)).subarray(0, 20)],
    ['a corrupt brotli body', 'br', Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])],
    ['an unknown encoding', 'zstd', Buffer.from('whatever')],
  ])('fails with WEB_DECODE_FAILED on %s', async (_what, encoding, body) => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': encoding });
      res.end(body);
    });
    const t = await hostFor(s);
    expect(await t.call('web_fetch', { url: s.url('/') })).toMatchObject({ error: { code: WebErrorCode.DECODE_FAILED } });
  });
});

describe('slow and broken servers', () => {
  it('stops a slow-loris body at timeoutMs with TOOL_TIMEOUT and closes the connection', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      // One byte now and then, forever: never idle, never done.
      const drip = setInterval(() => res.write('.'), 20);
      res.once('close', () => clearInterval(drip));
    });
    const t = await hostFor(s, { timeoutMs: 300 });
    expect(await t.call('web_fetch', { url: s.url('/') })).toMatchObject({ status: 'error', error: { code: 'TOOL_TIMEOUT' } });
    await s.closed(1);
  });

  it('stops a server that never answers when the call is aborted', async () => {
    const s = await serve(() => {
      // Accepts and never answers.
    });
    const t = await hostFor(s);
    const controller = new AbortController();
    const step = t.host.runStep({ calls: [{ id: 'slow', name: 'web_fetch', args: { url: s.url('/') } }] }, { signal: controller.signal });
    while (s.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    const { results } = await step;
    expect(results[0]?.outcome).toMatchObject({ status: 'error', error: { code: 'ABORTED' } });
    await s.closed(1);
  });

  it('fails with WEB_CONNECTION_FAILED when the connection breaks mid-body, and when nothing listens', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '1000' });
      res.write('partial');
      setImmediate(() => res.socket?.destroy());
    });
    const t = await hostFor(s);
    expect(await t.call('web_fetch', { url: s.url('/') })).toMatchObject({ error: { code: WebErrorCode.CONNECTION_FAILED } });
    const port = s.port;
    await s.close();
    servers.splice(0);
    const t2 = await createTestHost({ plugins: [toolWeb({ allow: ['127.0.0.1'], ports: [port] })] });
    expect(await t2.call('web_fetch', { url: `http://127.0.0.1:${port}/` })).toMatchObject({
      error: { code: WebErrorCode.CONNECTION_FAILED, data: { os: 'ECONNREFUSED' } },
    });
  });
});

describe('binary bodies', () => {
  it('refuses an image by its Content-Type without reading it', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]));
    });
    const t = await hostFor(s);
    expect(await t.call('web_fetch', { url: s.url('/') })).toMatchObject({
      error: { code: WebErrorCode.BINARY_CONTENT, data: { contentType: 'image/png' } },
    });
  });

  it('refuses untyped bytes that sniff as binary, and reads untyped text', async () => {
    const s = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(req.url === '/bin' ? Buffer.concat([Buffer.from('PK'), Buffer.alloc(3000)]) : Buffer.from('# plain readme\n'));
    });
    const t = await hostFor(s);
    expect(await t.call('web_fetch', { url: s.url('/bin') })).toMatchObject({
      error: { code: WebErrorCode.BINARY_CONTENT, data: { sniffed: true } },
    });
    expect(await t.call('web_fetch', { url: s.url('/txt') })).toMatchObject({ status: 'ok', output: { content: '# plain readme\n' } });
  });
});

describe('charsets', () => {
  const latin1 = Buffer.from(
    '<html><body><p>Café crème brûlée, naïve façade — enough words to be read as the page content.</p></body></html>',
    'latin1',
  );
  const cyrillic = Buffer.concat([
    Buffer.from('<html><head><meta charset="windows-1251"><title>t</title></head><body><p>'),
    new Uint8Array([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2, 0x2c, 0x20, 0xec, 0xe8, 0xf0]), // "Привет, мир"
    Buffer.from('</p></body></html>'),
  ]);

  async function fetched(headers: Record<string, string>, body: Buffer, format = 'html') {
    const s = await serve((_req, res) => {
      res.writeHead(200, headers);
      res.end(body);
    });
    const t = await hostFor(s);
    const outcome = await t.call('web_fetch', { url: s.url('/'), format });
    expect(outcome.status).toBe('ok');
    return (outcome as { output: Record<string, unknown> }).output;
  }

  it('decodes with the charset of the Content-Type header', async () => {
    const out = await fetched({ 'content-type': 'text/html; charset=ISO-8859-1' }, latin1);
    expect(out).toMatchObject({ charset: 'windows-1252', charsetSource: 'header' });
    expect(String(out.content)).toContain('Café crème brûlée, naïve façade');
  });

  it('decodes with the charset a page declares in a meta tag when the header has none', async () => {
    const out = await fetched({ 'content-type': 'text/html' }, cyrillic, 'text');
    expect(out).toMatchObject({ charset: 'windows-1251', charsetSource: 'meta', content: 'Привет, мир' });
  });

  it('falls back to UTF-8 with a notice when the declared charset is unknown', async () => {
    const out = await fetched({ 'content-type': 'text/plain; charset=x-klingon' }, Buffer.from('plain ütf-8'));
    expect(out).toMatchObject({ charset: 'utf-8', charsetSource: 'default', content: 'plain ütf-8' });
    expect(out.notice).toMatch(/unknown charset "x-klingon"/);
  });

  it('keeps going, with replacement characters, when the bytes do not fit the declared charset', async () => {
    const out = await fetched({ 'content-type': 'text/plain; charset=utf-8' }, latin1);
    expect(String(out.content)).toContain('Caf\ufffd cr\ufffdme');
  });

  it('lets a byte-order mark win over a wrong header', async () => {
    const body = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hello bom', 'utf16le')]);
    const out = await fetched({ 'content-type': 'text/plain; charset=windows-1252' }, body);
    expect(out).toMatchObject({ charset: 'utf-16le', charsetSource: 'bom', content: 'hello bom' });
  });
});
