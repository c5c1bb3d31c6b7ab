/**
 * The fast path of exact JSON parsing: `JSON.parse` is native and several
 * times faster than a lossless parser written in JavaScript, and for most
 * tool arguments it gives the very same value. It does when every number is
 * short enough to survive a double and no object repeats a key (the lossless
 * parser refuses a repeated key whose values differ; `JSON.parse` silently
 * keeps the last). Both are checked without allocating: a walk of the result
 * counts its keys and numbers; the text's colons (or, when there are numbers
 * or colons inside strings, a scan of its tokens) say how many keys it wrote.
 * Any doubt sends the text to the lossless parser.
 */

/** Digits a number token may have and still mean the same through a double (DBL_DIG). */
const maxPlainDigits = 15;
/** Deeper results are left to the lossless parser: the key count walk is recursive. */
const maxPlainDepth = 200;

const quote = 0x22;
const backslash = 0x5c;
const colon = 0x3a;
const minus = 0x2d;
const zero = 0x30;
const nine = 0x39;
const dot = 0x2e;

/** What {@link parsePlainJson} answers when the text needs the lossless parser (no JSON value is a symbol). */
export const needsLossless: unique symbol = Symbol('needs the lossless parser');

/**
 * Parses `text` with `JSON.parse` when that gives exactly what the lossless
 * parser would; {@link needsLossless} when it may not (long or exponent
 * numbers, repeated keys, very deep values, or text `JSON.parse` refuses).
 */
export function parsePlainJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The lossless parser throws its own, positioned, error for the same text.
    return needsLossless;
  }
  walkedNumbers = 0;
  const keys = ownKeys(value, 0);
  if (keys < 0) return needsLossless;
  // Without numbers only repeated keys could differ. Colons outside strings are exactly the
  // key tokens, so as many colons in all the text as keys in the value means none repeats.
  if (walkedNumbers === 0 && colons(text) === keys) return value;
  return keyTokens(text) === keys ? value : needsLossless;
}

/** Numbers met by the last {@link ownKeys} walk (kept here, not in an object per parse). */
let walkedNumbers = 0;

/** Colons anywhere in the text, strings included (`indexOf` is far faster than a loop over characters). */
function colons(text: string): number {
  let count = 0;
  for (let at = text.indexOf(':'); at !== -1; at = text.indexOf(':', at + 1)) count++;
  return count;
}

/**
 * The number of object keys in the text (strings followed by a colon), or -1
 * when a number token has an exponent or more than {@link maxPlainDigits}
 * digits. Text that is not JSON may give any count: `JSON.parse` refuses it.
 */
export function keyTokens(text: string): number {
  const length = text.length;
  let keys = 0;
  let i = 0;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === quote) {
      let end = text.indexOf('"', i + 1);
      while (end !== -1 && isEscaped(text, end)) end = text.indexOf('"', end + 1);
      if (end === -1) return -1;
      i = end + 1;
      while (i < length && isSpace(text.charCodeAt(i))) i++;
      if (text.charCodeAt(i) === colon) keys++;
    } else if ((c >= zero && c <= nine) || c === minus) {
      let digits = 0;
      for (; i < length; i++) {
        const d = text.charCodeAt(i);
        if (d >= zero && d <= nine) digits++;
        else if (d === 0x65 || d === 0x45) return -1;
        else if (d !== dot && d !== minus) break;
      }
      if (digits > maxPlainDigits) return -1;
    } else {
      i++;
    }
  }
  return keys;
}

/** True when the quote at `at` follows an odd run of backslashes. */
function isEscaped(text: string, at: number): boolean {
  let run = 0;
  while (text.charCodeAt(at - 1 - run) === backslash) run++;
  return run % 2 === 1;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Own keys in every object of a `JSON.parse` result, counting its numbers on the way; -1 past {@link maxPlainDepth}. */
function ownKeys(value: unknown, depth: number): number {
  if (typeof value !== 'object' || value === null) {
    if (typeof value === 'number') walkedNumbers++;
    return 0;
  }
  if (depth > maxPlainDepth) return -1;
  let count = 0;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const inner = ownKeys(value[i], depth + 1);
      if (inner < 0) return -1;
      count += inner;
    }
    return count;
  }
  // JSON.parse makes plain objects whose keys are all own and enumerable (`__proto__` included).
  for (const key in value) {
    const inner = ownKeys((value as Record<string, unknown>)[key], depth + 1);
    if (inner < 0) return -1;
    count += inner + 1;
  }
  return count;
}
