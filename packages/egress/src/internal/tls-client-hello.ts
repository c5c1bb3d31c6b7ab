/** What the first bytes of a tunnel say about TLS. */
export type ClientHelloScan =
  | { readonly state: 'incomplete' }
  | { readonly state: 'not-tls' }
  | { readonly state: 'malformed' }
  | { readonly state: 'client-hello'; readonly serverName: string | undefined };

/** A ClientHello larger than this is refused as malformed (real ones are a few KB). */
export const maxClientHelloBytes = 64 * 1024;

/**
 * Reads the server name (SNI) of a TLS ClientHello from a tunnel's first
 * bytes, which may span several TLS records. Non-TLS protocols (ssh, plain
 * HTTP) are `not-tls` after one byte.
 */
export function scanClientHello(bytes: Buffer): ClientHelloScan {
  if (bytes.length === 0) return { state: 'incomplete' };
  if (bytes[0] !== 0x16) return { state: 'not-tls' };
  // Gather the handshake bytes of whole records until the first message is complete.
  const fragments: Buffer[] = [];
  let gathered = 0;
  let offset = 0;
  while (offset + 5 <= bytes.length) {
    if (bytes[offset] !== 0x16) return { state: 'malformed' };
    const length = bytes.readUInt16BE(offset + 3);
    if (offset + 5 + length > bytes.length) break;
    fragments.push(bytes.subarray(offset + 5, offset + 5 + length));
    gathered += length;
    offset += 5 + length;
    if (gathered >= 4) {
      const handshake = Buffer.concat(fragments);
      if (handshake[0] !== 0x01) return { state: 'malformed' };
      const messageLength = handshake.readUIntBE(1, 3);
      if (4 + messageLength <= handshake.length) return parseClientHello(handshake.subarray(4, 4 + messageLength));
    }
  }
  return bytes.length > maxClientHelloBytes ? { state: 'malformed' } : { state: 'incomplete' };
}

function parseClientHello(body: Buffer): ClientHelloScan {
  try {
    let at = 2 + 32; // client_version, random
    at += 1 + body.readUInt8(at); // session_id
    at += 2 + body.readUInt16BE(at); // cipher_suites
    at += 1 + body.readUInt8(at); // compression_methods
    if (at === body.length) return { state: 'client-hello', serverName: undefined };
    const end = at + 2 + body.readUInt16BE(at);
    at += 2;
    if (end > body.length) return { state: 'malformed' };
    while (at + 4 <= end) {
      const type = body.readUInt16BE(at);
      const length = body.readUInt16BE(at + 2);
      at += 4;
      if (type === 0) return { state: 'client-hello', serverName: serverNameOf(body.subarray(at, at + length)) };
      at += length;
    }
    return { state: 'client-hello', serverName: undefined };
  } catch {
    return { state: 'malformed' };
  }
}

function serverNameOf(extension: Buffer): string | undefined {
  const end = Math.min(extension.length, 2 + extension.readUInt16BE(0));
  let at = 2;
  while (at + 3 <= end) {
    const type = extension.readUInt8(at);
    const length = extension.readUInt16BE(at + 1);
    at += 3;
    if (type === 0) return extension.subarray(at, at + length).toString('latin1');
    at += length;
  }
  return undefined;
}
