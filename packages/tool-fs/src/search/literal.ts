/**
 * The longest literal text every match of a JavaScript regex (no `u` flag)
 * must contain, or `undefined` when none can be proven. Used only to skip
 * files that cannot match, so it must never claim too much: anything it is
 * unsure of (escapes, classes, groups, alternation) ends the literal run.
 */
export function requiredLiteral(pattern: string): string | undefined {
  if (hasTopLevelAlternation(pattern)) return undefined;
  const runs: string[] = [];
  let run = '';
  const flush = (): void => {
    if (run.length > 0) runs.push(run);
    run = '';
  };
  let i = 0;
  while (i < pattern.length) {
    const c = pattern.charAt(i);
    let atom: string | undefined;
    let next = i + 1;
    if (c === '\\') {
      const d = pattern.charAt(i + 1);
      if (d === '') return undefined;
      if (/[A-Za-z0-9]/.test(d)) next = skipEscape(pattern, i);
      else {
        atom = d;
        next = i + 2;
      }
    } else if (c === '[') {
      next = skipClass(pattern, i);
    } else if (c === '(') {
      next = skipGroup(pattern, i);
    } else if ('.^$|)'.includes(c)) {
      // Not literal text.
    } else if ('*+?'.includes(c) || quantifierAt(pattern, i) !== undefined) {
      return undefined; // A quantifier with nothing before it: leave it to the regex engine.
    } else {
      atom = c;
    }
    if (next < 0) return undefined;
    const q = quantifierAt(pattern, next);
    if (q !== undefined) {
      if (atom !== undefined && q.min >= 1) run += atom;
      flush();
      next = q.end < pattern.length && pattern.charAt(q.end) === '?' ? q.end + 1 : q.end;
    } else if (atom !== undefined) {
      run += atom;
    } else {
      flush();
    }
    i = next;
  }
  flush();
  const usable = runs.map(cleanRun).filter((r) => r.length >= 2);
  usable.sort((a, b) => b.length - a.length);
  return usable[0];
}

/** Cuts a run at characters a byte search cannot stand for (surrogates, control characters). */
function cleanRun(run: string): string {
  let best = '';
  let part = '';
  for (let i = 0; i < run.length; i += 1) {
    const code = run.charCodeAt(i);
    const unsafe = code < 0x20 || code === 0x7f || (code >= 0xd800 && code <= 0xdfff);
    part = unsafe ? '' : part + run.charAt(i);
    if (part.length > best.length) best = part;
  }
  return best;
}

function quantifierAt(pattern: string, i: number): { min: number; end: number } | undefined {
  const c = pattern.charAt(i);
  if (c === '*' || c === '?') return { min: 0, end: i + 1 };
  if (c === '+') return { min: 1, end: i + 1 };
  if (c === '{') {
    const m = /^\{(\d+)(,\d*)?\}/.exec(pattern.slice(i));
    if (m !== null) return { min: Number(m[1]), end: i + m[0].length };
  }
  return undefined;
}

function skipEscape(pattern: string, i: number): number {
  const d = pattern.charAt(i + 1);
  if (d === 'x') return i + 4;
  if (d === 'u') return pattern.charAt(i + 2) === '{' ? pattern.indexOf('}', i) + 1 || -1 : i + 6;
  if (d === 'c') return i + 3;
  if (/[0-9]/.test(d)) {
    let j = i + 1;
    while (/[0-9]/.test(pattern.charAt(j))) j += 1;
    return j;
  }
  return i + 2;
}

function skipClass(pattern: string, i: number): number {
  let j = i + 1;
  if (pattern.charAt(j) === '^') j += 1;
  if (pattern.charAt(j) === ']')
    j += 1; // `[]` and `[^]` are complete in JS; a later `]` would be literal, so stop here.
  else {
    while (j < pattern.length && pattern.charAt(j) !== ']') j += pattern.charAt(j) === '\\' ? 2 : 1;
    if (j >= pattern.length) return -1;
    j += 1;
  }
  return j;
}

function skipGroup(pattern: string, i: number): number {
  let depth = 0;
  let j = i;
  while (j < pattern.length) {
    const c = pattern.charAt(j);
    if (c === '\\') j += 2;
    else if (c === '[') {
      j = skipClass(pattern, j);
      if (j < 0) return -1;
    } else {
      if (c === '(') depth += 1;
      else if (c === ')') {
        depth -= 1;
        if (depth === 0) return j + 1;
      }
      j += 1;
    }
  }
  return -1;
}

function hasTopLevelAlternation(pattern: string): boolean {
  let depth = 0;
  let j = 0;
  while (j < pattern.length) {
    const c = pattern.charAt(j);
    if (c === '\\') j += 2;
    else if (c === '[') {
      const end = skipClass(pattern, j);
      if (end < 0) return true;
      j = end;
    } else {
      if (c === '(') depth += 1;
      else if (c === ')') depth -= 1;
      else if (c === '|' && depth === 0) return true;
      j += 1;
    }
  }
  return false;
}
