/**
 * A count as a person reads it in a card: `1 line`, `2 lines`. `plural` for
 * nouns that do not just take an `s` (`1 entry`, `3 entries`). Plugins never
 * import each other, so the CLI keeps its own.
 */
export function counted(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
