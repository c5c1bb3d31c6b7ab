import type { Outcome } from './outcome.js';

/**
 * The text a model reads for an outcome: the output for `ok` (JSON text,
 * every digit kept, unless it is a string), otherwise the code and the
 * reason, so a denial reads as a denial and not as output. The one wording
 * the agent loop and the framework bridges share.
 */
export function outcomeText(outcome: Outcome): string {
  switch (outcome.status) {
    case 'ok':
      return typeof outcome.output === 'string' ? outcome.output : exactJsonText(outcome.output);
    case 'error':
      return `Error (${outcome.error.code}): ${outcome.error.message}`;
    case 'denied':
      return `Denied (${outcome.code}): ${outcome.reason}`;
    case 'blocked':
      return `Blocked (${outcome.code}): ${outcome.reason}`;
  }
}

// A NUL and a per-process nonce: no string a tool returns is mistaken for a placeholder.
const nonce = Math.random().toString(36).slice(2, 10);
const marker = `\u0000${nonce}#`;
const placeholder = new RegExp(`"\\\\u0000${nonce}#(\\d+)"`, 'g');

/**
 * JSON text of a lossless JSON value: bigints and `LosslessNumber`s are
 * written with every digit (`JSON.stringify` throws on the one and quotes
 * the other); everything else as `JSON.stringify` writes it. `'null'` for a
 * value JSON has no text for.
 */
export function exactJsonText(value: unknown): string {
  const exact: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => {
    const digits =
      typeof v === 'bigint'
        ? v.toString()
        : typeof v === 'object' && v !== null && (v as { isLosslessNumber?: unknown }).isLosslessNumber === true
          ? String(v)
          : undefined;
    if (digits === undefined) return v;
    exact.push(digits);
    return `${marker}${exact.length - 1}`;
  });
  if (text === undefined) return 'null';
  if (exact.length === 0) return text;
  return text.replace(placeholder, (_match, index: string) => exact[Number(index)] ?? 'null');
}
