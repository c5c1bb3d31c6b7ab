import { styleText } from 'node:util';

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

/** A style that paints (with Node's own `util.styleText`) when `colour` is true. */
export function styleFor(colour: boolean): Style {
  const paint = (format: Parameters<typeof styleText>[0]) => (text: string) => (colour ? styleText(format, text) : text);
  return {
    colour,
    bold: paint('bold'),
    dim: paint('dim'),
    red: paint('red'),
    green: paint('green'),
    yellow: paint('yellow'),
    cyan: paint('cyan'),
  };
}
