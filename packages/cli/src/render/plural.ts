/**
 * A count as a person reads it: `1 line`, `2 lines`, `0 files`. `plural`
 * for nouns that do not just take an `s` (`1 entry`, `3 entries`).
 */
export function counted(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
