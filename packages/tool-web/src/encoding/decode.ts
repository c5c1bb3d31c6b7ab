import { TextDecoder } from 'node:util';
import type { EncodingName } from './get-encoding.js';
import { decodeSingleByte, isSingleByte } from './single-byte.js';

/** The byte-order marks the Encoding Standard's BOM sniffing knows. */
export function sniffBom(bytes: Uint8Array): { readonly encoding: EncodingName; readonly length: number } | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: 'utf-8', length: 3 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: 'utf-16be', length: 2 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'utf-16le', length: 2 };
  return undefined;
}

/**
 * Decodes bytes (a byte-order mark already taken off) in an encoding of the
 * standard, replacing what does not fit with U+FFFD. Single-byte encodings
 * and x-user-defined are decoded by table; `replacement` (the label of
 * ISO-2022-KR, HZ-GB-2312, …) yields one U+FFFD for a non-empty body, as
 * the standard says, since those encodings can hide markup; the rest go to
 * the runtime's `TextDecoder`. `undefined` when the runtime does not support
 * the encoding (a Node built without ICU has no Shift_JIS, for one).
 */
export function decodeAs(encoding: EncodingName, bytes: Uint8Array): string | undefined {
  if (isSingleByte(encoding)) return decodeSingleByte(encoding, bytes);
  if (encoding === 'replacement') return bytes.length === 0 ? '' : '\ufffd';
  let decoder: TextDecoder;
  try {
    // ignoreBOM: the caller sniffed the mark; a second one is content (U+FEFF), as the standard's decode keeps it.
    decoder = new TextDecoder(encoding, { fatal: false, ignoreBOM: true });
  } catch {
    return undefined;
  }
  return decoder.decode(bytes);
}
