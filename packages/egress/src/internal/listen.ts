import { chmod, lstat, unlink } from 'node:fs/promises';
import { connect, type Server } from 'node:net';
import { EgressErrorCode, egressError } from '../errors.js';

/**
 * Listens on a unix socket path. A live listener there, or a file that is not
 * a socket, is `EGRESS_SOCKET_IN_USE`; a stale socket (nobody accepts) is
 * replaced. The socket is made owner-only.
 */
export async function listenOnPath(server: Server, path: string): Promise<void> {
  const existing = await lstat(path).catch(() => undefined);
  if (existing) {
    if (!existing.isSocket()) {
      throw egressError(EgressErrorCode.EGRESS_SOCKET_IN_USE, `socket path ${path} exists and is not a socket`);
    }
    if (await accepts(path)) {
      throw egressError(EgressErrorCode.EGRESS_SOCKET_IN_USE, `socket path ${path} is in use by a running listener`);
    }
    await unlink(path).catch(() => undefined);
  }
  await listen(server, { path }, `socket path ${path}`);
  await chmod(path, 0o600);
}

/** Listens on loopback TCP; returns the port. */
export async function listenOnTcp(server: Server, host: string, port: number): Promise<number> {
  await listen(server, { host, port }, `${host}:${port}`);
  const address = server.address();
  return typeof address === 'object' && address !== null ? address.port : port;
}

function listen(server: Server, where: { path: string } | { host: string; port: number }, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const inUse = error.code === 'EADDRINUSE';
      reject(
        egressError(
          inUse ? EgressErrorCode.EGRESS_SOCKET_IN_USE : EgressErrorCode.EGRESS_LISTEN_FAILED,
          `${what}: ${inUse ? 'in use' : `cannot listen (${error.code ?? error.message})`}`,
          { cause: error },
        ),
      );
    };
    server.once('error', onError);
    server.listen(where, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

function accepts(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect({ path });
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}
