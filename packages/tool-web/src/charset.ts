import { TextDecoder } from 'node:util';

/** Where the charset used to decode a body came from. */
export type CharsetSource = 'bom' | 'header' | 'meta' | 'default';

/** A decoded body. */
export interface DecodedText {
  readonly text: string;
  /** The WHATWG encoding name used (`utf-8`, `windows-1252`, `shift_jis`, …). */
  readonly charset: string;
  readonly source: CharsetSource;
  /** Set when a declared charset was unknown and UTF-8 was used instead. */
  readonly notice?: string;
}

function decoderFor(label: string | undefined): TextDecoder | undefined {
  if (label === undefined || label === '') return undefined;
  try {
    // fatal: false: bytes that do not fit the charset become U+FFFD instead of failing the fetch.
    return new TextDecoder(label.trim(), { fatal: false, ignoreBOM: false });
  } catch {
    return undefined;
  }
}

/** The `charset` parameter of a `Content-Type` header. */
export function charsetParameter(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*("?)([^";,\s]+)\1/i.exec(contentType ?? '');
  return match?.[2];
}

/**
 * The charset an HTML document declares in its first 1024 bytes
 * (`<meta charset>` or `<meta http-equiv="Content-Type" content="…;
 * charset=…">`), as the HTML standard's prescan looks for it. A declared
 * UTF-16 means UTF-8: the bytes were ASCII-compatible to be read at all.
 */
export function metaCharset(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
  for (const tag of head.match(/<meta\b[^>]*>/gi) ?? []) {
    const direct = /\bcharset\s*=\s*["']?\s*([^"'\s/>;]+)/i.exec(tag);
    if (direct !== null) {
      const label = direct[1] as string;
      return /^utf-?16/i.test(label) ? 'utf-8' : label;
    }
  }
  return undefined;
}

/** An XML declaration's `encoding` (`<?xml version="1.0" encoding="…"?>`). */
function xmlEncoding(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.subarray(0, 200)).toString('latin1');
  return /^<\?xml[^>]*\bencoding\s*=\s*["']([^"']+)["']/i.exec(head)?.[1];
}

function bomCharset(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  return undefined;
}

/**
 * Decodes a body the way a browser picks its encoding: a byte-order mark
 * first, then the `Content-Type` charset, then (for HTML and XML) what the
 * document declares, then UTF-8. An unknown label is skipped with a notice.
 */
export function decodeBody(bytes: Uint8Array, contentType: string | undefined, kind: 'html' | 'xml' | 'text'): DecodedText {
  const unknown: string[] = [];
  const attempt = (label: string | undefined, source: CharsetSource): DecodedText | undefined => {
    if (label === undefined) return undefined;
    const decoder = decoderFor(label);
    if (decoder === undefined) {
      unknown.push(label);
      return undefined;
    }
    const text = decoder.decode(bytes);
    const notice = unknown.length === 0 ? undefined : `unknown charset ${unknown.map((l) => `"${l}"`).join(', ')} ignored`;
    return notice === undefined ? { text, charset: decoder.encoding, source } : { text, charset: decoder.encoding, source, notice };
  };
  return (
    attempt(bomCharset(bytes), 'bom') ??
    attempt(charsetParameter(contentType), 'header') ??
    (kind === 'html' ? attempt(metaCharset(bytes), 'meta') : undefined) ??
    (kind === 'xml' ? attempt(xmlEncoding(bytes), 'meta') : undefined) ??
    (attempt('utf-8', 'default') as DecodedText)
  );
}
