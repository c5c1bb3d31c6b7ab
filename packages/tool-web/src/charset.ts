import { contentTypeCharset } from './encoding/content-type-charset.js';
import { decodeAs, sniffBom } from './encoding/decode.js';
import { type EncodingName, getEncoding } from './encoding/get-encoding.js';
import { type DeclaredEncoding, prescanHtml, prescanLimit, xmlDeclarationEncoding } from './encoding/html-prescan.js';

/** Where the charset used to decode a body came from (`meta`: the document's own `<meta>` or XML declaration). */
export type CharsetSource = 'bom' | 'header' | 'meta' | 'default';

/** A decoded body. */
export interface DecodedText {
  readonly text: string;
  /** The WHATWG encoding name used, in lower case (`utf-8`, `windows-1252`, `shift_jis`, …). */
  readonly charset: string;
  readonly source: CharsetSource;
  /** Set when a declared charset was unknown or unsupported and was skipped, or when the body was not decoded (`replacement`). */
  readonly notice?: string;
}

/** An XML body's own declaration: a UTF-16 start (XML's Appendix F), else the declaration's `encoding`. */
function xmlDeclared(bytes: Uint8Array): DeclaredEncoding {
  if (bytes[0] === 0x3c && bytes[1] === 0 && bytes[2] === 0x3f && bytes[3] === 0) return { encoding: 'utf-16le', unknownLabels: [] };
  if (bytes[0] === 0 && bytes[1] === 0x3c && bytes[2] === 0 && bytes[3] === 0x3f) return { encoding: 'utf-16be', unknownLabels: [] };
  return xmlDeclarationEncoding(bytes.subarray(0, prescanLimit));
}

/**
 * Decodes a body the way a browser picks its encoding (the WHATWG Encoding
 * and HTML standards): a byte-order mark first; then the `Content-Type`
 * charset; then, for HTML, the `<meta>` prescan of the first 1,024 bytes
 * (or an XML declaration there) and, for XML, the declaration; then UTF-8.
 * Labels resolve by the Encoding Standard's table; an unknown one is skipped
 * with a notice. Bytes that do not fit become U+FFFD, never a failure.
 */
export function decodeBody(bytes: Uint8Array, contentType: string | undefined, kind: 'html' | 'xml' | 'text'): DecodedText {
  const skipped: string[] = [];
  const result = (encoding: EncodingName, body: Uint8Array, source: CharsetSource): DecodedText | undefined => {
    const text = decodeAs(encoding, body);
    if (text === undefined) {
      skipped.push(`unsupported charset "${encoding}" (this Node has no decoder for it) ignored`);
      return undefined;
    }
    const notices = [...skipped];
    if (encoding === 'replacement' && body.length > 0) {
      notices.push('the declared charset maps to the "replacement" encoding (ISO-2022-KR, HZ-GB-2312, …): the body is withheld');
    }
    return notices.length === 0 ? { text, charset: encoding, source } : { text, charset: encoding, source, notice: notices.join('; ') };
  };
  const unknown = (labels: readonly string[]): void => {
    if (labels.length > 0) skipped.push(`unknown charset ${labels.map((l) => `"${l}"`).join(', ')} ignored`);
  };

  const bom = sniffBom(bytes);
  if (bom !== undefined) {
    const decoded = result(bom.encoding, bytes.subarray(bom.length), 'bom');
    if (decoded !== undefined) return decoded;
  }
  const label = contentTypeCharset(contentType);
  if (label !== undefined) {
    const encoding = getEncoding(label);
    if (encoding === undefined) unknown([label]);
    const decoded = encoding === undefined ? undefined : result(encoding, bytes, 'header');
    if (decoded !== undefined) return decoded;
  }
  if (kind !== 'text') {
    const declared = kind === 'html' ? prescanHtml(bytes) : xmlDeclared(bytes);
    unknown(declared.unknownLabels);
    const decoded = declared.encoding === undefined ? undefined : result(declared.encoding, bytes, 'meta');
    if (decoded !== undefined) return decoded;
  }
  return result('utf-8', bytes, 'default') as DecodedText;
}
