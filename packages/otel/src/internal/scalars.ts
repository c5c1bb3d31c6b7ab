import { LosslessNumber } from '@deepseek-ai/dsh-core';
import type { Attributes } from '@opentelemetry/api';

/** The top-level string, number and boolean fields of an event's data, as span event attributes. */
export function scalarAttributes(data: unknown): Attributes {
  const attributes: Attributes = {};
  if (typeof data !== 'object' || data === null) return attributes;
  for (const [key, value] of Object.entries(data)) {
    if (typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) {
      attributes[key] = value;
    }
  }
  return attributes;
}

/** JSON text of arguments as sent; big integers and precise decimals become exact strings. Never throws. */
export function argumentsText(args: unknown): string {
  if (typeof args === 'string') return args;
  try {
    return (
      JSON.stringify(args, (_key, value: unknown) =>
        typeof value === 'bigint' || value instanceof LosslessNumber ? String(value) : value,
      ) ?? ''
    );
  } catch {
    return '';
  }
}
