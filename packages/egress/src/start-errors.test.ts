import { execFile } from 'node:child_process';
import { lstat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Cleanup, connectVia, socketDir, startTestProxy } from './fixtures/harness.js';
import { startEgressProxy } from './proxy.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());
const decide = () => 'allow' as const;

describe('starting the proxy', () => {
  it('refuses a socket path another live proxy listens on with EGRESS_SOCKET_IN_USE', async () => {
    const { proxy } = await startTestProxy(cleanup, { decide: () => 'deny' });
    await expect(startEgressProxy({ socketPath: proxy.socketPath, decide })).rejects.toMatchObject({ code: 'EGRESS_SOCKET_IN_USE' });
    const call = await proxy.openCall('c');
    expect((await connectVia(proxy.socketPath, 'allowed.test:80', call.token)).status).toBe(403);
  });

  it('refuses a socket path that is a regular file, and leaves the file alone', async () => {
    const dir = await socketDir(cleanup);
    const path = join(dir, 'notes.txt');
    await writeFile(path, 'keep me');
    await expect(startEgressProxy({ socketPath: path, decide })).rejects.toMatchObject({ code: 'EGRESS_SOCKET_IN_USE' });
  });

  it('replaces a stale socket nobody listens on', async () => {
    const dir = await socketDir(cleanup);
    const path = join(dir, 'stale.sock');
    // A process killed while listening leaves its socket file behind.
    const script = `require('net').createServer().listen(process.argv[1], () => process.kill(process.pid, 'SIGKILL'))`;
    await new Promise((resolve) => execFile(process.execPath, ['-e', script, path], resolve));
    expect((await lstat(path)).isSocket()).toBe(true);
    const proxy = await startEgressProxy({ socketPath: path, decide });
    cleanup.add(() => proxy.close());
    expect(proxy.socketPath).toBe(path);
  });

  it.each([
    [{ socketPath: '', decide }, /socketPath/],
    [{ socketPath: `/tmp/${'x'.repeat(120)}`, decide }, /socketPath/],
    [{ socketPath: '/tmp/x.sock' }, /decide/],
    [{ socketPath: '/tmp/x.sock', decide, tcp: { host: '0.0.0.0', port: 0 } }, /tcp\.host/],
    [{ socketPath: '/tmp/x.sock', decide, limits: { maxConnectionsPerCall: 0 } }, /limits\.maxConnectionsPerCall/],
    [{ socketPath: '/tmp/x.sock', decide, allowAddresses: ['localhost'] }, /allowAddresses/],
  ])('refuses unusable options with EGRESS_INVALID_OPTIONS naming the field (%#)', async (options, field) => {
    const start = startEgressProxy(options as never);
    await expect(start).rejects.toMatchObject({ code: 'EGRESS_INVALID_OPTIONS' });
    await expect(start).rejects.toThrow(field);
  });

  it('refuses to open a call id twice', async () => {
    const { proxy } = await startTestProxy(cleanup, { decide });
    await proxy.openCall('c');
    await expect(proxy.openCall('c')).rejects.toMatchObject({ code: 'EGRESS_CALL_REFUSED' });
  });

  it('also listens on loopback TCP when asked', async () => {
    const { proxy } = await startTestProxy(cleanup, { decide, tcp: { port: 0 } });
    expect(proxy.tcpPort).toBeGreaterThan(0);
  });
});
