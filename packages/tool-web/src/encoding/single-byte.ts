import type { EncodingName } from './get-encoding.js';
import { singleByteIndexes } from './single-byte-indexes.js';

type IndexName = keyof typeof singleByteIndexes;

/** The encodings decoded byte by byte through a 256-entry table: the standard's single-byte ones and x-user-defined. */
export type SingleByteEncoding = IndexName | 'iso-8859-8-i' | 'x-user-defined';

const tables = new Map<SingleByteEncoding, Uint16Array>();

function isIndexName(name: string): name is IndexName {
  return Object.hasOwn(singleByteIndexes, name);
}

/** Whether an encoding is decoded here, by table, rather than by the runtime's `TextDecoder`. */
export function isSingleByte(encoding: EncodingName): encoding is SingleByteEncoding {
  return encoding === 'iso-8859-8-i' || encoding === 'x-user-defined' || isIndexName(encoding);
}

function buildTable(encoding: SingleByteEncoding): Uint16Array {
  const table = new Uint16Array(256);
  for (let b = 0; b < 0x80; b += 1) table[b] = b;
  if (encoding === 'x-user-defined') {
    // The standard maps 0x80–0xFF into the Private Use Area, U+F780–U+F7FF.
    for (let b = 0x80; b < 0x100; b += 1) table[b] = 0xf780 + b - 0x80;
    return table;
  }
  // ISO-8859-8-I differs from ISO-8859-8 only in how text is laid out, not in its index.
  const rows = singleByteIndexes[encoding === 'iso-8859-8-i' ? 'iso-8859-8' : encoding];
  rows
    .join(' ')
    .split(' ')
    .forEach((hex, i) => {
      table[0x80 + i] = Number.parseInt(hex, 16);
    });
  return table;
}

/** The byte → code point table of a single-byte encoding, built on first use. */
export function singleByteTable(encoding: SingleByteEncoding): Uint16Array {
  let table = tables.get(encoding);
  if (table === undefined) {
    table = buildTable(encoding);
    tables.set(encoding, table);
  }
  return table;
}

/**
 * Decodes bytes in a single-byte encoding as the Encoding Standard does
 * (unmapped bytes become U+FFFD), the same on every Node version: Node's
 * own `TextDecoder` differs from the standard for windows-1252 (on Node 20),
 * IBM866, KOI8-U, windows-874, -1253 and -1255, and lacks ISO-8859-16.
 */
export function decodeSingleByte(encoding: SingleByteEncoding, bytes: Uint8Array): string {
  const table = singleByteTable(encoding);
  // Little-endian UTF-16 written byte by byte, so the result does not depend on the machine's byte order.
  const units = Buffer.allocUnsafe(bytes.length * 2);
  for (let i = 0; i < bytes.length; i += 1) {
    const cp = table[bytes[i] as number] as number;
    units[2 * i] = cp & 0xff;
    units[2 * i + 1] = cp >> 8;
  }
  return units.toString('utf16le');
}
