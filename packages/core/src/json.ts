import { isInteger, isLosslessNumber, isSafeNumber, LosslessNumber, parse } from 'lossless-json';
import { needsLossless, parsePlainJson } from './internal/plain-json.js';

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
 * Throws a `SyntaxError` for text that is not JSON, and for an object that
 * repeats a key with another value (`JSON.parse` would silently keep the last).
 */
export function parseJsonExact(text: string): unknown {
  // Most arguments need no lossless parser: the native one gives the same value, several times faster.
  const plain = parsePlainJson(text);
  return plain === needsLossless ? parse(text, null, exactNumber) : plain;
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

function pathOf(keys: readonly (string | number)[], base = '$'): string {
  let path = base;
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
  const measured = measureAndFreezeJson(value);
  return typeof measured === 'number' ? undefined : measured;
}

// The walk's size estimate lives here, not in an object per walk: finalisation runs once per call.
let walkedBytes = 0;

/**
 * {@link freezeJson} that also estimates, on the same walk, the value's size
 * as JSON (strings by length, small fixed sizes for the rest, as the session
 * log counts): the size when the value is JSON, else the problem.
 */
export function measureAndFreezeJson(value: unknown): number | JsonProblem {
  if (value === undefined) return { path: '$', message: 'undefined is not JSON' };
  walkedBytes = 0;
  // One ancestors array serves every walk; a walk started inside another (from a proxy's trap) gets its own.
  const ancestors = spareAncestors ?? [];
  spareAncestors = undefined;
  let found: Found | undefined;
  try {
    found = walkJson(value, ancestors);
  } finally {
    // A walk that completes pops all it pushed; truncating would drop the array's storage too.
    if (ancestors.length > 0) ancestors.length = 0;
    spareAncestors = ancestors;
  }
  return found === undefined ? walkedBytes : { path: pathOf(found.keys.reverse()), message: found.message };
}

let spareAncestors: object[] | undefined = [];

/** A problem found by the walk; `keys` run from the problem outwards, filled in only on the way back up. */
interface Found {
  readonly message: string;
  readonly keys: (string | number)[];
}

const found = (message: string): Found => ({ message, keys: [] });

/** Deeper than any real result; bounds the walk (and the linear cycle check) on hostile values. */
const maxDepth = 2000;

/**
 * `ancestors` holds the objects above `v`, for cycles. Results are shallow,
 * so a linear scan beats a Set, and nothing is allocated unless there is a problem.
 */
function walkJson(v: unknown, ancestors: object[]): Found | undefined {
  switch (typeof v) {
    case 'string':
      walkedBytes += v.length + 2;
      return undefined;
    case 'boolean':
    case 'bigint':
      walkedBytes += 8;
      return undefined;
    case 'number':
      walkedBytes += 8;
      return Number.isFinite(v) ? undefined : found(`${v} is not a JSON number`);
    case 'object': {
      if (v === null || isLosslessNumber(v)) {
        walkedBytes += 8;
        if (v !== null) Object.freeze(v);
        return undefined;
      }
      walkedBytes += 2;
      const isArray = Array.isArray(v);
      if (!isArray) {
        const proto = Object.getPrototypeOf(v);
        if (proto !== Object.prototype && proto !== null) {
          return found(`a ${describe(v)} is not plain JSON; convert it to a string, array or plain object`);
        }
      }
      if (!isArray && Object.hasOwn(v, '__proto__')) return protoKeyFound();
      if (ancestors.includes(v)) return found('a cycle: this object contains itself');
      if (ancestors.length >= maxDepth) return found(`nested deeper than ${maxDepth} levels`);
      ancestors.push(v);
      const problem = isArray ? walkArray(v, ancestors) : walkObject(v as Record<string, unknown>, ancestors);
      if (problem !== undefined) return problem;
      ancestors.pop();
      Object.freeze(v);
      return undefined;
    }
    default:
      return found(`a ${typeof v} is not JSON`);
  }
}

function walkArray(v: readonly unknown[], ancestors: object[]): Found | undefined {
  walkedBytes += v.length;
  for (let i = 0; i < v.length; i++) {
    const item = v[i];
    const problem = item === undefined ? found('undefined in an array is not JSON') : walkJson(item, ancestors);
    if (problem !== undefined) {
      problem.keys.push(i);
      return problem;
    }
  }
  return undefined;
}

function walkObject(v: Record<string, unknown>, ancestors: object[]): Found | undefined {
  for (const key in v) {
    const item = v[key];
    if (item === undefined) continue;
    walkedBytes += key.length + 4;
    const problem = walkJson(item, ancestors);
    if (problem !== undefined) {
      problem.keys.push(key);
      return problem;
    }
  }
  return undefined;
}

const protoKeyMessage =
  'an own "__proto__" key is refused: copying the value with Object.assign or a JSON merge would replace the copy\'s prototype';

function protoKeyFound(): Found {
  const problem = found(protoKeyMessage);
  problem.keys.push('__proto__');
  return problem;
}

function isPlainContainer(v: object): boolean {
  if (Array.isArray(v)) return true;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * The path of the first own `__proto__` key in the plain objects and arrays
 * of `value` (`$.a[0].__proto__`), or `undefined` when there is none. Core
 * refuses such keys in arguments and outputs: `Object.assign({}, v)` would
 * hand the key to the target's prototype setter. `constructor` and
 * `prototype` are ordinary keys (copies make own data properties of them).
 */
export function findProtoKey(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  scanBudget = maxScanNodes;
  // The fast scan allocates nothing; only a hit, or a value too deep or large for it, takes the careful walk.
  return quickScan(value, 0) ? protoKeyPath(value) : undefined;
}

/** Objects the allocation-free scan visits before handing over to the careful walk (which handles cycles). */
const maxScanNodes = 10_000;
let scanBudget = 0;

/** True when `v` may hold an own `__proto__` key: found, or too deep or too large to tell here. */
function quickScan(v: object, depth: number): boolean {
  if (depth > 64 || --scanBudget < 0) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i];
      if (typeof item === 'object' && item !== null && quickScan(item, depth + 1)) return true;
    }
    return false;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  if (Object.hasOwn(v, '__proto__')) return true;
  for (const key in v) {
    const item = (v as Record<string, unknown>)[key];
    if (typeof item === 'object' && item !== null && quickScan(item, depth + 1)) return true;
  }
  return false;
}

/** The careful walk: an explicit stack and a seen set, for values from any caller, deep or cyclic. */
function protoKeyPath(value: object): string | undefined {
  const stack: [object, string][] = [[value, '$']];
  const seen = new Set<object>();
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [v, path] = next;
    if (seen.has(v) || !isPlainContainer(v)) continue;
    seen.add(v);
    const isArray = Array.isArray(v);
    if (!isArray && Object.hasOwn(v, '__proto__')) return `${path}.__proto__`;
    for (const key in v) {
      const item = (v as Record<string, unknown>)[key];
      if (typeof item === 'object' && item !== null) stack.push([item, isArray ? `${path}[${key}]` : pathOf([key], path)]);
    }
  }
  return undefined;
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
