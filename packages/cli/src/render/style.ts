/** Text styles for a terminal: real ANSI colours on a TTY, the text unchanged otherwise. */
export interface Style {
  readonly colour: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

/**
 * Colour when the stream is a TTY, unless `NO_COLOR` is set (any value) or
 * `--no-color` was given; `FORCE_COLOR` (not `0`) turns it on anywhere.
 */
export function colourWanted(isTTY: boolean, env: NodeJS.ProcessEnv, noColourFlag: boolean): boolean {
  if (noColourFlag || (env.NO_COLOR !== undefined && env.NO_COLOR !== '')) return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return isTTY;
}

/** A style that paints when `colour` is true. */
export function styleFor(colour: boolean): Style {
  const paint = (code: number) => (text: string) => (colour ? `\u001b[${code}m${text}\u001b[0m` : text);
  return { colour, bold: paint(1), dim: paint(2), red: paint(31), green: paint(32), yellow: paint(33), cyan: paint(36) };
}
