/**
 * Finds the line of every value in a JSON text, so a rule can be reported
 * as `.claude/settings.json:12`. Run it only on text `JSON.parse` accepted.
 */
export function jsonLines(text: string): (path: readonly (string | number)[]) => number | undefined {
  const lines = new Map<string, number>();
  let i = 0;
  let line = 1;
  const ws = (): void => {
    while (i < text.length) {
      const c = text[i];
      if (c === '\n') line += 1;
      else if (c !== ' ' && c !== '\t' && c !== '\r') return;
      i += 1;
    }
  };
  const string = (): string => {
    const start = i;
    i += 1;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i += 1;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: string): void => {
    ws();
    lines.set(path, line);
    const c = text[i];
    if (c === '{') {
      i += 1;
      ws();
      while (text[i] !== '}' && i < text.length) {
        ws();
        const key = string();
        ws();
        i += 1; // ':'
        value(`${path}\u0000${key}`);
        ws();
        if (text[i] === ',') i += 1;
        ws();
      }
      i += 1;
    } else if (c === '[') {
      i += 1;
      ws();
      let index = 0;
      while (text[i] !== ']' && i < text.length) {
        value(`${path}\u0000${index}`);
        index += 1;
        ws();
        if (text[i] === ',') i += 1;
        ws();
      }
      i += 1;
    } else if (c === '"') {
      string();
    } else {
      while (i < text.length && !',}] \t\r\n'.includes(text[i] as string)) i += 1;
    }
  };
  value('');
  return (path) => lines.get(path.map((p) => `\u0000${p}`).join(''));
}
