import type { Socket } from 'node:net';
import { EgressErrorCode } from '../errors.js';
import { canonicalHost, type HostAndPort } from '../host-name.js';
import { ByteReader } from './byte-reader.js';
import type { ClientConnection } from './connection.js';
import { openDestination } from './open-destination.js';
import { isRefusal, type ProxyCore, type Refusal, recordRefusal, tunnelOpened } from './proxy-core.js';

// RFC 1928 reply codes.
const reply = { ok: 0x00, failure: 0x01, notAllowed: 0x02, hostUnreachable: 0x04, refused: 0x05, command: 0x07, addressType: 0x08 };

const replyOf: Record<string, number> = {
  EGRESS_DENIED: reply.notAllowed,
  EGRESS_DECIDE_FAILED: reply.notAllowed,
  EGRESS_BLOCKED_ADDRESS: reply.notAllowed,
  EGRESS_RESOLVE_FAILED: reply.hostUnreachable,
  EGRESS_CONNECT_FAILED: reply.refused,
};

function replyBytes(code: number): Buffer {
  return Buffer.from([0x05, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0]);
}

/**
 * The SOCKS5 side (RFC 1928, CONNECT only; RFC 1929 username/password, where
 * the username is the call's token). On a call's own socket no credentials
 * are needed. Names are resolved here, on the proxy (`socks5h` semantics).
 */
export async function handleSocks(core: ProxyCore, conn: ClientConnection, socket: Socket, first: Buffer): Promise<void> {
  const startedAt = Date.now();
  const reader = new ByteReader(socket, first);
  socket.on('error', () => undefined);
  const refuse = (refusal: Refusal, bytes: Buffer, target?: HostAndPort) => {
    recordRefusal(core, conn, 'socks5', startedAt, refusal, target);
    socket.end(bytes);
  };
  try {
    const [, methodCount = 0] = await reader.read(2);
    const methods = await reader.read(methodCount);
    let token: string | undefined;
    if (methods.includes(0x02)) {
      socket.write(Buffer.from([0x05, 0x02]));
      const [, userLength = 0] = await reader.read(2);
      token = (await reader.read(userLength)).toString('utf8');
      const [passwordLength = 0] = await reader.read(1);
      await reader.read(passwordLength);
      const known = core.attribute(conn, token);
      if (isRefusal(known)) return refuse(known, Buffer.from([0x01, 0x01]));
      socket.write(Buffer.from([0x01, 0x00]));
    } else if (conn.fixedCall && methods.includes(0x00)) {
      socket.write(Buffer.from([0x05, 0x00]));
    } else {
      return refuse({ code: EgressErrorCode.EGRESS_UNKNOWN_CALL, reason: 'SOCKS5 without the call token' }, Buffer.from([0x05, 0xff]));
    }
    const call = core.attribute(conn, token);
    if (isRefusal(call)) return refuse(call, replyBytes(reply.failure));
    const [version, command, , addressType] = await reader.read(4);
    let host: string | undefined;
    if (addressType === 0x01) host = [...(await reader.read(4))].join('.');
    else if (addressType === 0x03) host = (await reader.read((await reader.read(1))[0] ?? 0)).toString('latin1');
    else if (addressType === 0x04) host = `[${((await reader.read(16)).toString('hex').match(/.{4}/g) ?? []).join(':')}]`;
    else
      return refuse(
        { code: EgressErrorCode.EGRESS_BAD_REQUEST, reason: `SOCKS5 address type ${addressType}` },
        replyBytes(reply.addressType),
      );
    const port = (await reader.read(2)).readUInt16BE(0);
    core.headComplete(conn);
    if (version !== 0x05 || command !== 0x01) {
      return refuse(
        { code: EgressErrorCode.EGRESS_BAD_REQUEST, reason: `SOCKS5 command ${command} (only CONNECT is served)` },
        replyBytes(reply.command),
      );
    }
    const canonical = canonicalHost(host);
    if (!canonical || port === 0) {
      return refuse(
        { code: EgressErrorCode.EGRESS_BAD_REQUEST, reason: `${JSON.stringify(host)}:${port} is no usable destination` },
        replyBytes(reply.hostUnreachable),
      );
    }
    const target = { ...canonical, port };
    const opened = await openDestination(core.opener, conn, call, target, 'socks5');
    if (!opened.ok) return refuse(opened, replyBytes(replyOf[opened.code] ?? reply.failure), target);
    socket.write(replyBytes(reply.ok));
    tunnelOpened(core, conn, opened, { client: socket, head: reader.detach(), target, protocol: 'socks5', startedAt });
  } catch {
    // The client closed during the handshake: nothing was opened.
    socket.destroy();
  }
}
