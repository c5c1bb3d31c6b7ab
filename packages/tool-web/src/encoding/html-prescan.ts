import { isAsciiWhitespace } from './ascii.js';
import { type EncodingName, getEncoding } from './get-encoding.js';

/** What a document's own bytes declare: the encoding, if one was found, and every label that was declared but unknown. */
export interface DeclaredEncoding {
  readonly encoding?: EncodingName;
  readonly unknownLabels: readonly string[];
}

/** How many bytes the prescan reads, as the HTML standard encourages. */
export const prescanLimit = 1024;

const lt = 0x3c;
const gt = 0x3e;
const slash = 0x2f;
const equals = 0x3d;
const dash = 0x2d;
const bang = 0x21;
const question = 0x3f;

const isLetter = (b: number | undefined): boolean => b !== undefined && ((b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a));
const lower = (b: number): string => String.fromCharCode(b >= 0x41 && b <= 0x5a ? b + 0x20 : b);

function startsWith(bytes: Uint8Array, at: number, prefix: readonly number[]): boolean {
  return prefix.every((b, i) => bytes[at + i] === b);
}

/** The meta prescan's substitutions: a declared UTF-16 cannot be true of ASCII-readable bytes; x-user-defined means windows-1252. */
function forMeta(encoding: EncodingName): EncodingName {
  if (encoding === 'utf-16le' || encoding === 'utf-16be') return 'utf-8';
  return encoding === 'x-user-defined' ? 'windows-1252' : encoding;
}

/**
 * The HTML standard's "prescan a byte stream to determine its encoding" over
 * the first {@link prescanLimit} bytes: a UTF-16 `<?x` start, then the first
 * `<meta charset>` or `<meta http-equiv="content-type" content="…charset=…">`
 * outside comments and other tags' attributes; when the bytes run out first,
 * the XML declaration's `encoding` ({@link xmlDeclarationEncoding}).
 */
export function prescanHtml(bytes: Uint8Array): DeclaredEncoding {
  const head = bytes.subarray(0, prescanLimit);
  const unknownLabels: string[] = [];
  const encoding = scan(head, unknownLabels);
  if (encoding !== undefined) return { encoding, unknownLabels };
  const xml = xmlDeclarationEncoding(head);
  return { ...xml, unknownLabels: [...unknownLabels, ...xml.unknownLabels] };
}

/** The prescan's loop; `undefined` when the bytes ran out, the only way it ends without an encoding. */
function scan(head: Uint8Array, unknownLabels: string[]): EncodingName | undefined {
  if (startsWith(head, 0, [lt, 0, question, 0, 0x78, 0])) return 'utf-16le';
  if (startsWith(head, 0, [0, lt, 0, question, 0, 0x78])) return 'utf-16be';
  for (let p = 0; p < head.length; p += 1) {
    if (head[p] !== lt) continue;
    if (startsWith(head, p, [lt, bang, dash, dash])) {
      // To the '>' of the first "-->", whose dashes may be those of "<!--" itself.
      let end = p + 4;
      while (end < head.length && !(head[end] === gt && head[end - 1] === dash && head[end - 2] === dash)) end += 1;
      if (end >= head.length) return undefined;
      p = end;
    } else if (isMetaStart(head, p)) {
      const meta = readMeta(head, p + 5, unknownLabels);
      if (meta === undefined) return undefined;
      if (meta.encoding !== undefined) return meta.encoding;
      p = meta.next;
    } else if (isLetter(head[p + 1]) || (head[p + 1] === slash && isLetter(head[p + 2]))) {
      let q = p + 1;
      while (q < head.length && !isAsciiWhitespace(head[q]) && head[q] !== gt) q += 1;
      for (;;) {
        const attribute = getAttribute(head, q);
        if (attribute === undefined) return undefined;
        q = attribute.next;
        if (attribute.name === undefined) break;
      }
      p = q;
    } else if (head[p + 1] === bang || head[p + 1] === slash || head[p + 1] === question) {
      const end = head.indexOf(gt, p + 1);
      if (end < 0) return undefined;
      p = end;
    }
  }
  return undefined;
}

/** `<meta` (any case) followed by whitespace or `/`. */
function isMetaStart(head: Uint8Array, p: number): boolean {
  const name = [0x6d, 0x65, 0x74, 0x61]; // "meta"
  if (!name.every((b, i) => (head[p + 1 + i] ?? 0) === b || (head[p + 1 + i] ?? 0) === b - 0x20)) return false;
  const after = head[p + 5];
  return isAsciiWhitespace(after) || after === slash;
}

/** The attributes of one `<meta>`: its encoding if it declares a usable one; `undefined` when the bytes ran out. */
function readMeta(
  head: Uint8Array,
  start: number,
  unknownLabels: string[],
): { readonly encoding?: EncodingName; readonly next: number } | undefined {
  const seen = new Set<string>();
  let gotPragma = false;
  let needPragma: boolean | undefined;
  let charset: { readonly encoding?: EncodingName; readonly label: string } | undefined;
  let p = start;
  for (;;) {
    const attribute = getAttribute(head, p);
    if (attribute === undefined) return undefined;
    p = attribute.next;
    if (attribute.name === undefined) break;
    if (seen.has(attribute.name)) continue;
    seen.add(attribute.name);
    if (attribute.name === 'http-equiv') {
      if (attribute.value === 'content-type') gotPragma = true;
    } else if (attribute.name === 'content') {
      const label = charsetInMetaContent(attribute.value);
      if (label !== undefined && charset === undefined) {
        // An unknown label here is kept (as unusable) only to be reported; the outcome is the standard's.
        const encoding = getEncoding(label);
        charset = encoding === undefined ? { label } : { encoding, label };
        needPragma = true;
      }
    } else if (attribute.name === 'charset') {
      const encoding = getEncoding(attribute.value);
      charset = encoding === undefined ? { label: attribute.value } : { encoding, label: attribute.value };
      needPragma = false;
    }
  }
  if (needPragma === undefined || (needPragma && !gotPragma) || charset === undefined) return { next: p };
  if (charset.encoding === undefined) {
    unknownLabels.push(charset.label);
    return { next: p };
  }
  return { encoding: forMeta(charset.encoding), next: p };
}

interface Attribute {
  /** `undefined`: there was no attribute (the tag ended). */
  readonly name?: string;
  readonly value: string;
  /** Where the scan goes on. */
  readonly next: number;
}

/** The prescan's "get an attribute", names and values in ASCII lower case; `undefined` when the bytes ran out. */
function getAttribute(head: Uint8Array, start: number): Attribute | undefined {
  let p = start;
  while (p < head.length && (isAsciiWhitespace(head[p]) || head[p] === slash)) p += 1;
  if (p >= head.length) return undefined;
  if (head[p] === gt) return { value: '', next: p };
  let name = '';
  for (;;) {
    const b = head[p];
    if (b === undefined) return undefined;
    if (b === equals && name !== '') {
      p += 1;
      break;
    }
    if (isAsciiWhitespace(b)) {
      while (p < head.length && isAsciiWhitespace(head[p])) p += 1;
      if (p >= head.length) return undefined;
      if (head[p] !== equals) return { name, value: '', next: p };
      p += 1;
      break;
    }
    if (b === slash || b === gt) return { name, value: '', next: p };
    name += lower(b);
    p += 1;
  }
  while (p < head.length && isAsciiWhitespace(head[p])) p += 1;
  const first = head[p];
  if (first === undefined) return undefined;
  if (first === 0x22 || first === 0x27) {
    const close = head.indexOf(first, p + 1);
    if (close < 0) return undefined;
    let value = '';
    for (let i = p + 1; i < close; i += 1) value += lower(head[i] as number);
    return { name, value, next: close + 1 };
  }
  if (first === gt) return { name, value: '', next: p };
  let value = '';
  for (;;) {
    const b = head[p];
    if (b === undefined) return undefined;
    if (isAsciiWhitespace(b) || b === gt) return { name, value, next: p };
    value += lower(b);
    p += 1;
  }
}

/**
 * The HTML standard's "algorithm for extracting a character encoding from a
 * meta element", on a `content` value already in lower case: the label
 * after the first `charset` that is followed by `=`, quoted or up to
 * whitespace or `;`.
 */
function charsetInMetaContent(content: string): string | undefined {
  let from = 0;
  for (;;) {
    const at = content.indexOf('charset', from);
    if (at < 0) return undefined;
    let p = at + 'charset'.length;
    while (isAsciiWhitespace(content.charCodeAt(p))) p += 1;
    if (content[p] !== '=') {
      from = p;
      continue;
    }
    p += 1;
    while (isAsciiWhitespace(content.charCodeAt(p))) p += 1;
    const c = content[p];
    if (c === undefined) return undefined;
    if (c === '"' || c === "'") {
      const close = content.indexOf(c, p + 1);
      return close < 0 ? undefined : content.slice(p + 1, close);
    }
    let end = p;
    while (end < content.length && !isAsciiWhitespace(content.charCodeAt(end)) && content[end] !== ';') end += 1;
    return content.slice(p, end);
  }
}

/**
 * The HTML standard's "get an XML encoding": the `encoding` of an XML
 * declaration at the very start (`<?xml … encoding="…"?>`), a declared
 * UTF-16 read as UTF-8. Also what an XML body declares.
 */
export function xmlDeclarationEncoding(bytes: Uint8Array): DeclaredEncoding {
  const none = { unknownLabels: [] };
  if (!startsWith(bytes, 0, [lt, question, 0x78, 0x6d, 0x6c])) return none;
  const end = bytes.indexOf(gt);
  if (end < 0) return none;
  // The standard finds `end` but does not say to stop there; stopping keeps an `encoding` in the body from counting.
  const declaration = bytes.subarray(0, end);
  const word = Buffer.from(declaration).indexOf('encoding');
  if (word < 0) return none;
  let p = word + 'encoding'.length;
  while (p < declaration.length && (declaration[p] as number) <= 0x20) p += 1;
  if (declaration[p] !== equals) return none;
  p += 1;
  while (p < declaration.length && (declaration[p] as number) <= 0x20) p += 1;
  const quote = declaration[p];
  if (quote !== 0x22 && quote !== 0x27) return none;
  const close = declaration.indexOf(quote, p + 1);
  if (close < 0) return none;
  const raw = declaration.subarray(p + 1, close);
  if (raw.some((b) => b <= 0x20)) return none;
  const label = Buffer.from(raw).toString('latin1');
  const encoding = getEncoding(label);
  if (encoding === undefined) return { unknownLabels: [label] };
  return { encoding: encoding === 'utf-16le' || encoding === 'utf-16be' ? 'utf-8' : encoding, unknownLabels: [] };
}
