import type { Outcome } from '@deepseek-ai/dsh-core';

/**
 * The text the model reads for a dsh outcome: the output for `ok` (JSON text
 * unless it is a string), otherwise the code and the reason, so a denial reads
 * as a denial and not as output.
 */
export function outcomeText(outcome: Outcome): string {
  switch (outcome.status) {
    case 'ok':
      return typeof outcome.output === 'string' ? outcome.output : jsonText(outcome.output);
    case 'error':
      return `Error (${outcome.error.code}): ${outcome.error.message}`;
    case 'denied':
      return `Denied (${outcome.code}): ${outcome.reason}`;
    case 'blocked':
      return `Blocked (${outcome.code}): ${outcome.reason}`;
  }
}

// A NUL and a per-process nonce: no string a tool returns is mistaken for a number.
const nonce = Math.random().toString(36).slice(2, 10);
const marker = `\u0000${nonce}#`;
const exactNumber = new RegExp(`"\\\\u0000${nonce}#(-?[0-9][0-9.eE+-]*)"`, 'g');

/**
 * JSON text of a lossless value: bigints and lossless numbers are written as
 * their exact digits, neither rounded nor quoted.
 */
export function jsonText(value: unknown): string {
  let exact = false;
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint') {
      exact = true;
      return `${marker}${v.toString()}`;
    }
    if (typeof v === 'object' && v !== null && (v as { isLosslessNumber?: unknown }).isLosslessNumber === true) {
      exact = true;
      return `${marker}${String(v)}`;
    }
    return v;
  });
  if (text === undefined) return 'null';
  return exact ? text.replace(exactNumber, '$1') : text;
}
