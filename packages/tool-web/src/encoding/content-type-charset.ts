import { asciiLowerCase } from './ascii.js';

/**
 * The `charset` of a `Content-Type` header value, read the way the Fetch
 * standard's "extract a MIME type" and the MIME Sniffing standard's parser
 * read it: the value is split at commas outside quoted strings; each part
 * is parsed as a MIME type (a part that does not parse, or is `*\/*`, is
 * skipped); the last MIME type wins, and it keeps the charset of an earlier
 * part of the same essence when it has none of its own.
 */
export function contentTypeCharset(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  let essence: string | undefined;
  // The charset of the first part of the current essence, inherited by later parts that have none.
  let inherited: string | undefined;
  let result: string | undefined;
  for (const part of splitHeaderValue(header)) {
    const type = parseMimeType(part);
    if (type === undefined || type.essence === '*/*') continue;
    const own = type.parameters.get('charset');
    if (type.essence !== essence) {
      essence = type.essence;
      inherited = own;
      result = own;
    } else {
      result = own ?? inherited;
    }
  }
  return result;
}

const httpTabOrSpace = /^[\t ]+|[\t ]+$/g;
const httpWhitespace = /^[\t\n\r ]+|[\t\n\r ]+$/g;
const tokenOnly = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const quotedStringTokenOnly = /^[\t\u0020-\u007e\u0080-\u00ff]*$/;

/** Fetch's "get, decode, and split": commas inside a quoted string do not split. */
function splitHeaderValue(value: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < value.length; i += 1) {
    const c = value[i] as string;
    if (c === '"') {
      const quoted = readQuoted(value, i);
      current += value.slice(i, quoted.end);
      i = quoted.end - 1;
    } else if (c === ',') {
      parts.push(current.replace(httpTabOrSpace, ''));
      current = '';
    } else {
      current += c;
    }
  }
  parts.push(current.replace(httpTabOrSpace, ''));
  return parts;
}

/** Fetch's "collect an HTTP quoted string" from the `"` at `start`: the unescaped value and where it ends. */
function readQuoted(input: string, start: number): { readonly value: string; readonly end: number } {
  let value = '';
  let i = start + 1;
  while (i < input.length) {
    const c = input[i] as string;
    i += 1;
    if (c === '"') break;
    if (c === '\\') {
      if (i >= input.length) {
        value += '\\';
        break;
      }
      value += input[i];
      i += 1;
    } else {
      value += c;
    }
  }
  return { value, end: i };
}

interface MimeType {
  readonly essence: string;
  readonly parameters: ReadonlyMap<string, string>;
}

/** The MIME Sniffing standard's "parse a MIME type"; `undefined` is its failure. */
function parseMimeType(input: string): MimeType | undefined {
  const s = input.replace(httpWhitespace, '');
  const slash = s.indexOf('/');
  if (slash <= 0) return undefined;
  const type = s.slice(0, slash);
  let semicolon = s.indexOf(';', slash + 1);
  if (semicolon < 0) semicolon = s.length;
  const subtype = s.slice(slash + 1, semicolon).replace(/[\t\n\r ]+$/, '');
  if (!tokenOnly.test(type) || !tokenOnly.test(subtype)) return undefined;
  const parameters = new Map<string, string>();
  let i = semicolon;
  while (i < s.length) {
    i += 1; // past the ';'
    while (i < s.length && /[\t\n\r ]/.test(s[i] as string)) i += 1;
    let nameEnd = i;
    while (nameEnd < s.length && s[nameEnd] !== ';' && s[nameEnd] !== '=') nameEnd += 1;
    const name = asciiLowerCase(s.slice(i, nameEnd));
    i = nameEnd;
    if (i < s.length && s[i] === ';') continue;
    i += 1; // past the '='
    if (i >= s.length) break;
    let value: string;
    if (s[i] === '"') {
      const quoted = readQuoted(s, i);
      value = quoted.value;
      i = quoted.end;
      while (i < s.length && s[i] !== ';') i += 1;
    } else {
      let end = s.indexOf(';', i);
      if (end < 0) end = s.length;
      value = s.slice(i, end).replace(/[\t\n\r ]+$/, '');
      i = end;
      if (value === '') continue;
    }
    if (tokenOnly.test(name) && quotedStringTokenOnly.test(value) && !parameters.has(name)) parameters.set(name, value);
  }
  return { essence: `${type}/${subtype}`.toLowerCase(), parameters };
}
