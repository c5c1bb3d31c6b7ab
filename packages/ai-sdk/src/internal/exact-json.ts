import { type JsonValue, LosslessNumber } from '@deepseek-ai/dsh-core';

/** True when `value` holds a number JSON.stringify cannot write exactly (a bigint, a LosslessNumber). */
export function hasExactNumbers(value: JsonValue): boolean {
  if (typeof value === 'bigint' || value instanceof LosslessNumber) return true;
  if (Array.isArray(value)) return value.some(hasExactNumbers);
  if (typeof value === 'object' && value !== null) return Object.values(value).some((v) => hasExactNumbers(v as JsonValue));
  return false;
}

/** JSON text of `value` with every digit of its large integers kept. */
export function exactJson(value: JsonValue): string {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof LosslessNumber) return value.value;
  if (Array.isArray(value)) return `[${value.map(exactJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${exactJson(v as JsonValue)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}
