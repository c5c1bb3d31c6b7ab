import { type JsonValue, LosslessNumber } from '@deepseek-ai/dsh-core';

/** Exact numbers become plain numbers: the program's JSON.parse would round them to doubles anyway. */
function replacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof LosslessNumber) return Number(value.value);
  return value;
}

/** A tool output as JSON text for the program (core has already checked and frozen it as JSON). */
export function outputText(output: JsonValue): string {
  // Plain stringify is much faster; exact numbers are rare (a BigInt throws, a LosslessNumber leaves its marker).
  try {
    const text = JSON.stringify(output);
    if (text !== undefined && !text.includes('"isLosslessNumber"')) return text;
  } catch {
    // A BigInt: take the slow path.
  }
  return JSON.stringify(output, replacer) ?? 'null';
}

export { parseGuestJson } from './guest-text.js';
