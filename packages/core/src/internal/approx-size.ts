/** Values walked per estimate at most: a hostile (huge or cyclic) value costs a bounded walk. */
const maxNodes = 100_000;
/** Deeper than this, a value counts as a fixed size: the walk never overflows the stack. */
const maxDepth = 64;

// The walk's budget lives here, not in an object per call: estimating runs twice per tool call.
let nodesLeft = 0;

/**
 * About how many bytes `value` takes as JSON: strings by length, small
 * fixed sizes for the rest. Cheap and bounded, not exact: the session log
 * uses it to bound what it keeps in memory.
 */
export function approxSize(value: unknown): number {
  nodesLeft = maxNodes;
  return sizeOf(value, 0);
}

function sizeOf(value: unknown, depth: number): number {
  if (typeof value === 'string') return value.length + 2;
  if (typeof value !== 'object' || value === null) return 8;
  if (nodesLeft <= 0 || depth >= maxDepth) return 16;
  nodesLeft -= 1;
  let size = 2;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) size += sizeOf(value[i], depth + 1) + 1;
    return size;
  }
  for (const key in value) size += key.length + 4 + sizeOf((value as Record<string, unknown>)[key], depth + 1);
  return size;
}
