import { LosslessNumber } from '@deepseek-ai/dsh-core';

/** True if the value holds a bigint or a `LosslessNumber` anywhere. */
export function hasExactNumbers(value: unknown): boolean {
  if (typeof value === 'bigint' || value instanceof LosslessNumber) return true;
  if (typeof value !== 'object' || value === null) return false;
  for (const key in value) if (hasExactNumbers((value as Record<string, unknown>)[key])) return true;
  return false;
}

/**
 * A copy in which bigints and `LosslessNumber`s are plain numbers, for
 * validators that only know `number`. Only ever validated, never sent: the
 * server gets the exact digits. Returns the value itself when nothing needs changing.
 */
export function plainView(value: unknown): unknown {
  if (!hasExactNumbers(value)) return value;
  return convert(value);
}

function convert(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof LosslessNumber) return value.valueOf();
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(convert);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = convert(v);
  return out;
}
