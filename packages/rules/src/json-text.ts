/** Where a JSON text stopped parsing: 1-based line and column, and the parser's reason without its position. */
export interface JsonSyntaxProblem {
  readonly line: number;
  readonly column: number;
  readonly reason: string;
}

/** What parsing a settings file's text gave: its value, or where and why it is not JSON. */
export type JsonTextResult = { readonly ok: true; readonly value: unknown } | ({ readonly ok: false } & JsonSyntaxProblem);

/**
 * Parses JSON text and, when it is not JSON, says at which line and column it stopped, so a person
 * can go to the trailing comma. Node 20's messages give only a character offset ("at position 8"),
 * Node 22's add "(line 2 column 1)"; both are turned into the same line and column.
 */
export function parseJsonText(text: string): JsonTextResult {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, ...jsonSyntaxProblem(text, error) };
  }
}

/** The line, column and reason of a `JSON.parse` failure on `text`. */
export function jsonSyntaxProblem(text: string, error: unknown): JsonSyntaxProblem {
  const message = error instanceof Error ? error.message : String(error);
  const reason = message
    .replace(/ \(line \d+ column \d+\)$/, '')
    .replace(/ in JSON at position \d+$/, '')
    .replace(/^Unexpected end of JSON input$/, 'the text ends before the JSON does');
  const at = /at position (\d+)/.exec(message);
  const offset = at === null ? text.length : Math.min(Number(at[1]), text.length);
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1) + 1;
  return { line, column, reason };
}
