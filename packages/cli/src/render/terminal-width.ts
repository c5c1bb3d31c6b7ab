/**
 * The width cards and questions wrap to: the terminal's columns, asked each
 * time (a window can be resized), 80 when the terminal does not say. When
 * stdout is not a terminal nothing is wrapped: a file or a pipe keeps whole
 * lines for grep and for readers that wrap themselves.
 */
export function terminalWidth(isTTY: boolean, stream: { readonly columns?: number } = process.stdout): (() => number) | undefined {
  if (!isTTY) return undefined;
  return () => (typeof stream.columns === 'number' && stream.columns > 0 ? stream.columns : 80);
}
