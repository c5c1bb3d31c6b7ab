/** Lowers A–Z only, as the Infra standard's "ASCII lowercase" does (`toLowerCase` would also fold `K` (U+212A) to `k`). */
export function asciiLowerCase(s: string): string {
  return s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0x20));
}

/** Whether a byte or code unit is ASCII whitespace: TAB, LF, FF, CR or SPACE. */
export function isAsciiWhitespace(c: number | undefined): boolean {
  return c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d || c === 0x20;
}
