import { parseJsonExact } from '@deepseek-ai/dsh-core';
import { stringify } from 'lossless-json';
import { hasExactNumbers } from './plain-view.js';

/** JSON text of a message; bigints and `LosslessNumber`s are written with every digit. */
export function wireStringify(message: unknown): string {
  // The exact writer is several times slower than JSON.stringify; only exact numbers need it.
  const text = hasExactNumbers(message) ? stringify(message) : JSON.stringify(message);
  if (text === undefined) throw new TypeError('the message is not JSON');
  return text;
}

/**
 * A number a double may not hold exactly: 16 or more digits (with a point
 * among them), or an exponent of three digits. A string that merely looks like
 * one only sends the text down the exact (slower) path.
 */
const maybeInexact = /\d[\d.]{15}|[eE][+-]?\d{3}/;

/** Parses a message without rounding numbers (large integers become bigints). */
export function wireParse(text: string): unknown {
  return maybeInexact.test(text) ? parseJsonExact(text) : JSON.parse(text);
}
