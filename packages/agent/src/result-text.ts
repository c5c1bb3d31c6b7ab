import { type CallResult, isToolContent, type Outcome } from '@deepseek-ai/dsh-core';
import { partsText } from './content.js';
import type { ToolResultEntry } from './messages.js';

/**
 * The one result entry the model gets for a call: the output as text for
 * `ok`, otherwise the code and the reason, so a denial reads as a denial.
 */
export function resultEntry(id: string, result: CallResult): ToolResultEntry {
  const { outcome } = result;
  if (outcome.status === 'ok' && isToolContent(outcome.output)) {
    // Media parts stay parts; the text beside them names each one, for providers that take none.
    return { id, name: result.name, status: 'ok', content: partsText(outcome.output.parts), isError: false, parts: outcome.output.parts };
  }
  return {
    id,
    name: result.name,
    status: result.outcome.status,
    content: outcomeText(result.outcome),
    isError: result.outcome.status !== 'ok',
  };
}

/** The text the model reads for an outcome. */
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
 * the exact digits, not rounded and not quoted.
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
  // The marker is escaped by JSON.stringify, so it cannot collide with user text.
  return exact ? text.replace(exactNumber, '$1') : text;
}
