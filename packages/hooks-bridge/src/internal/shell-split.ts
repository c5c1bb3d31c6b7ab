/**
 * Splits a shell command line into its simple commands: at `;`, `&`, `&&`,
 * `|`, `||`, newlines and parentheses outside quotes, and the commands inside
 * `$(…)` and backticks as well. Leading `VAR=value` assignments are dropped.
 * Returns `undefined` when the line cannot be read with confidence (open
 * quotes or substitutions, here-documents): callers then fail open.
 */
export function splitShellCommands(line: string): string[] | undefined {
  const out: string[] = [];
  if (!collect(line, out, 0)) return undefined;
  return out.map(stripAssignments).filter((c) => c !== '');
}

function collect(line: string, out: string[], depth: number): boolean {
  if (depth > 8 || /<<-?\s*['"]?\w/.test(line)) return false;
  let current = '';
  let i = 0;
  const flush = (): void => {
    const trimmed = current.trim();
    if (trimmed !== '') out.push(trimmed);
    current = '';
  };
  while (i < line.length) {
    const c = line[i] as string;
    if (c === '\\') {
      current += line.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) return false;
      current += line.slice(i, end + 1);
      i = end + 1;
      continue;
    }
    if (c === '"') {
      const end = closingDoubleQuote(line, i + 1, out, depth);
      if (end === -1) return false;
      current += line.slice(i, end + 1);
      i = end + 1;
      continue;
    }
    if (c === '$' && line[i + 1] === '(') {
      const end = closingParen(line, i + 2);
      if (end === -1) return false;
      if (!collect(line.slice(i + 2, end), out, depth + 1)) return false;
      current += line.slice(i, end + 1);
      i = end + 1;
      continue;
    }
    if (c === '`') {
      const end = line.indexOf('`', i + 1);
      if (end === -1) return false;
      if (!collect(line.slice(i + 1, end), out, depth + 1)) return false;
      current += line.slice(i, end + 1);
      i = end + 1;
      continue;
    }
    if (c === ';' || c === '&' || c === '|' || c === '\n' || c === '(' || c === ')') {
      flush();
      i += 1;
      continue;
    }
    current += c;
    i += 1;
  }
  flush();
  return true;
}

/** Index of the `"` closing a double-quoted string that starts at `from`; substitutions inside are collected. */
function closingDoubleQuote(line: string, from: number, out: string[], depth: number): number {
  let i = from;
  while (i < line.length) {
    const c = line[i];
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (c === '"') return i;
    if (c === '$' && line[i + 1] === '(') {
      const end = closingParen(line, i + 2);
      if (end === -1 || !collect(line.slice(i + 2, end), out, depth + 1)) return -1;
      i = end + 1;
      continue;
    }
    if (c === '`') {
      const end = line.indexOf('`', i + 1);
      if (end === -1 || !collect(line.slice(i + 1, end), out, depth + 1)) return -1;
      i = end + 1;
      continue;
    }
    i += 1;
  }
  return -1;
}

/** Index of the `)` that closes a `$(` whose body starts at `from`, skipping quotes and nesting. */
function closingParen(line: string, from: number): number {
  let depth = 1;
  let i = from;
  while (i < line.length) {
    const c = line[i];
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) return -1;
      i = end + 1;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      while (j < line.length && line[j] !== '"') j += line[j] === '\\' ? 2 : 1;
      if (j >= line.length) return -1;
      i = j + 1;
      continue;
    }
    if (c === '(') depth += 1;
    if (c === ')') {
      depth -= 1;
      if (depth === 0) return i;
    }
    i += 1;
  }
  return -1;
}

const assignment = /^[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"(?:[^"\\]|\\.)*"|[^\s'"]*)+\s+/;

function stripAssignments(command: string): string {
  let rest = command.trim();
  for (let m = assignment.exec(rest); m !== null; m = assignment.exec(rest)) rest = rest.slice(m[0].length);
  // A line that is only an assignment has no command to match.
  return /^[A-Za-z_][A-Za-z0-9_]*=\S*$/.test(rest) ? '' : rest;
}
