import { isInteger, isLosslessNumber, isSafeNumber, LosslessNumber, parse } from 'lossless-json';

/**
 * A value that survives a trip through JSON unchanged. Integers beyond 2^53
 * are `bigint`, decimals with more digits than a double holds are
 * `LosslessNumber`; both serialise exactly. Object properties that are
 * `undefined` are allowed and, as in JSON, absent once serialised.
 */
export type JsonValue = null | boolean | number | string | bigint | LosslessNumber | JsonArray | JsonObject;
/** A JSON array; holes and `undefined` elements are not allowed. */
export type JsonArray = readonly JsonValue[];
/** A JSON object with plain string keys. */
export type JsonObject = { readonly [key: string]: JsonValue | undefined };

export { LosslessNumber };

/** Turns a number's source text into a value that keeps every digit. */
function exactNumber(text: string): number | bigint | LosslessNumber {
  if (isSafeNumber(text)) return Number(text);
  if (isInteger(text)) return BigInt(text);
  return new LosslessNumber(text);
}

/**
 * Parses JSON text without rounding: safe numbers become `number`, larger
 * integers `bigint`, over-precise decimals `LosslessNumber`.
 * Throws a `SyntaxError` for text that is not JSON.
 */
export function parseJsonExact(text: string): unknown {
  return parse(text, null, exactNumber);
}

/** Where a value stopped being JSON, and why. */
export interface JsonProblem {
  readonly path: string;
  readonly message: string;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object') return typeof value;
  const ctor = (value as { constructor?: { name?: unknown } }).constructor;
  return typeof ctor?.name === 'string' && ctor.name !== '' ? ctor.name : 'object';
}

function pathOf(keys: readonly (string | number)[]): string {
  let path = '$';
  for (const key of keys) {
    path += typeof key === 'number' ? `[${key}]` : /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
  }
  return path;
}

/**
 * Checks that `value` is lossless JSON and deep-freezes it in place, in one
 * walk that costs about what `JSON.stringify` costs (no serialisation, no
 * parse). Returns the first problem found, or `undefined` when the value is
 * JSON; on a problem, the parts walked so far may already be frozen.
 */
export function freezeJson(value: unknown): JsonProblem | undefined {
  const keys: (string | number)[] = [];
  const ancestors = new Set<object>();

  const walk = (v: unknown): string | undefined => {
    switch (typeof v) {
      case 'string':
      case 'boolean':
      case 'bigint':
        return undefined;
      case 'number':
        return Number.isFinite(v) ? undefined : `${v} is not a JSON number`;
      case 'object': {
        if (v === null) return undefined;
        if (ancestors.has(v)) return 'a cycle: this object contains itself';
        if (Array.isArray(v)) {
          ancestors.add(v);
          for (let i = 0; i < v.length; i++) {
            const item = v[i];
            if (item === undefined) {
              keys.push(i);
              return 'undefined in an array is not JSON';
            }
            keys.push(i);
            const problem = walk(item);
            if (problem !== undefined) return problem;
            keys.pop();
          }
          ancestors.delete(v);
          Object.freeze(v);
          return undefined;
        }
        if (isLosslessNumber(v)) {
          Object.freeze(v);
          return undefined;
        }
        const proto = Object.getPrototypeOf(v);
        if (proto !== Object.prototype && proto !== null) {
          return `a ${describe(v)} is not plain JSON; convert it to a string, array or plain object`;
        }
        ancestors.add(v);
        for (const key in v) {
          const item = (v as Record<string, unknown>)[key];
          if (item === undefined) continue;
          keys.push(key);
          const problem = walk(item);
          if (problem !== undefined) return problem;
          keys.pop();
        }
        ancestors.delete(v);
        Object.freeze(v);
        return undefined;
      }
      default:
        return `a ${typeof v} is not JSON`;
    }
  };

  if (value === undefined) return { path: '$', message: 'undefined is not JSON' };
  const message = walk(value);
  return message === undefined ? undefined : { path: pathOf(keys), message };
}

/** Deep-freezes plain objects and arrays, leaving other values alone. */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  const proto = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return value;
  Object.freeze(value);
  for (const key in value) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}
