/** Bash's `$'…'` escapes, decoded so an encoded program name (`$'\\x72m'`) is seen as `rm`. */
const simpleEscapes: Readonly<Record<string, string>> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
  e: '\x1b',
  E: '\x1b',
  a: '\x07',
  b: '\b',
  f: '\f',
  v: '\v',
};

/** Decodes one escape of a `$'…'` string starting after its backslash, as bash does (`\x72`, `\162`, `\u0072`, `\cA`). */
export function decodeAnsiEscape(src: string, at: number): { text: string; end: number } {
  const c = src[at] as string;
  const simple = simpleEscapes[c];
  if (simple !== undefined) return { text: simple, end: at + 1 };
  const numeric = (pattern: RegExp, radix: number, from: number): { text: string; end: number } | undefined => {
    const m = pattern.exec(src.slice(from, from + 8));
    if (m === null) return undefined;
    const code = Number.parseInt(m[0], radix);
    return { text: code <= 0x10ffff ? String.fromCodePoint(code) : '', end: from + m[0].length };
  };
  const decoded =
    (c === 'x' && numeric(/^[0-9a-fA-F]{1,2}/, 16, at + 1)) ||
    (c === 'u' && numeric(/^[0-9a-fA-F]{1,4}/, 16, at + 1)) ||
    (c === 'U' && numeric(/^[0-9a-fA-F]{1,8}/, 16, at + 1)) ||
    (/[0-7]/.test(c) && numeric(/^[0-7]{1,3}/, 8, at)) ||
    undefined;
  if (decoded !== undefined) return decoded;
  if (c === 'c' && at + 1 < src.length) return { text: String.fromCharCode((src.charCodeAt(at + 1) & 0x1f) >>> 0), end: at + 2 };
  return { text: `\\${c}`, end: at + 1 };
}
