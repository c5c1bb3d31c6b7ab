import { createHash } from 'node:crypto';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Cleanup, closed, connectVia, recorder, startTestProxy, tableResolver } from './fixtures/harness.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

// Bytes whose order shows: a chunk overwritten or repeated in the tunnel's one read buffer changes the hash.
const body = Buffer.from(Array.from({ length: 16 * 1024 * 1024 }, (_, i) => (i * 7 + (i >> 16)) % 251));
const banner = Buffer.from('SSH-2.0-origin\r\n');
const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** A destination that speaks first (a banner on accept), then sends `body` once the client writes, and reports when it met backpressure. */
async function startTalkativeOrigin() {
  let blocked!: () => void;
  const sawBackpressure = new Promise<void>((resolve) => {
    blocked = resolve;
  });
  const server = createServer((socket) => {
    socket.write(banner);
    socket.once('data', () => {
      if (!socket.write(body)) blocked();
      socket.end();
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.add(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = server.address();
  return { port: typeof address === 'object' && address ? address.port : 0, sawBackpressure };
}

describe('a tunnel from the destination to the client', () => {
  it('carries bytes sent before the tunnel starts and a large body to a stalled client, intact and in order', async () => {
    const origin = await startTalkativeOrigin();
    const log = recorder();
    const resolve = tableResolver({ 'origin.test': ['127.0.0.1'] });
    const { proxy } = await startTestProxy(cleanup, {
      decide: () => 'allow',
      resolve,
      allowAddresses: ['127.0.0.1'],
      onConnection: log.onConnection,
    });
    const call = await proxy.openCall('c');
    const { status, socket, rest } = await connectVia(proxy.socketPath, `origin.test:${origin.port}`, call.token);
    expect(status).toBe(200);
    // The banner may come in the same read as the proxy's 200.
    const chunks: Buffer[] = [rest];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // The client reads nothing until the origin could not write all at once: the proxy had to hold back.
    socket.pause();
    socket.write('go');
    await origin.sawBackpressure;
    socket.resume();
    await closed(socket);
    const received = Buffer.concat(chunks);
    expect(received.length).toBe(banner.length + body.length);
    expect(received.subarray(0, banner.length).toString()).toBe(banner.toString());
    expect(sha(received.subarray(banner.length))).toBe(sha(body));
    const record = await log.next((r) => r.protocol === 'http-connect');
    expect(record).toMatchObject({ decision: 'allow', bytesUp: 2, bytesDown: banner.length + body.length });
    expect(record.code).toBeUndefined();
  });
});
