/**
 * Splits a Claude Code tool list as front matter writes it (`allowed-tools` of a skill, `tools` of an
 * agent definition): entries separated by commas or whitespace outside parentheses, so
 * `Read, Grep Bash(git log *)` is three entries. A YAML list of such strings is split entry by entry.
 * Undefined when the value is neither a string nor a list of strings.
 */
export function splitToolList(value: unknown): string[] | undefined {
  if (typeof value === 'string') return splitEntries(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.flatMap((v: string) => splitEntries(v));
  return undefined;
}

function splitEntries(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth += 1;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (ch === ',' || /\s/.test(ch))) {
      if (current !== '') out.push(current);
      current = '';
    } else current += ch;
  }
  if (current !== '') out.push(current);
  return out;
}
