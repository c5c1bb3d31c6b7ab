/**
 * Tool-name patterns, as policies take them in their options: an exact name,
 * or a glob where `*` matches any run of characters (`mcp__*`). Exact names
 * win over patterns; patterns are tried in the order given.
 */
export interface ToolNameMatcher<T> {
  lookup(name: string): T | undefined;
}

/** Builds a matcher over `entries` (`[pattern, value]`), e.g. per-tool timeouts. */
export function toolNameMatcher<T>(entries: Iterable<readonly [string, T]>): ToolNameMatcher<T> {
  const exact = new Map<string, T>();
  const globs: { readonly test: RegExp; readonly value: T }[] = [];
  for (const [pattern, value] of entries) {
    if (pattern.includes('*')) globs.push({ test: globToRegExp(pattern), value });
    else if (!exact.has(pattern)) exact.set(pattern, value);
  }
  return {
    lookup(name) {
      const hit = exact.get(name);
      if (hit !== undefined) return hit;
      for (const glob of globs) if (glob.test.test(name)) return glob.value;
      return undefined;
    },
  };
}

function globToRegExp(glob: string): RegExp {
  const body = glob
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`);
}
