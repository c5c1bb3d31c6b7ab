import { type JsonValue, LosslessNumber } from '@deepseek-ai/dsh-core';

/** True when `value` holds a number JSON.stringify cannot write exactly (a bigint, a LosslessNumber). */
export function hasExactNumbers(value: JsonValue): boolean {
  if (typeof value === 'bigint' || value instanceof LosslessNumber) return true;
  if (Array.isArray(value)) return value.some(hasExactNumbers);
  if (typeof value === 'object' && value !== null) return Object.values(value).some((v) => hasExactNumbers(v as JsonValue));
  return false;
}
