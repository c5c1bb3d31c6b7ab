/**
 * Word wrapping for a terminal: lines break at spaces to fit the width,
 * continuation lines keep the line's indent and gutter (`    │ `), ANSI
 * colours carry over to the next line, and only a word wider than the line
 * is cut.
 */

/** An ANSI escape (CSI such as colours, or OSC such as links): zero columns wide. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes start with ESC and OSC ends with BEL
const escapePattern = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/y;

type Unit = { readonly escape: true; readonly text: string } | { readonly escape: false; readonly text: string; readonly width: number };

/** Columns a character takes: 0 for combining marks, 2 for East Asian wide characters and emoji, else 1. */
function charWidth(ch: string): number {
  const code = ch.codePointAt(0) ?? 0;
  if (code < 32 || (code >= 0x7f && code < 0xa0) || /\p{M}/u.test(ch) || code === 0x200b || code === 0xfe0f) return 0;
  if (/\p{Emoji_Presentation}/u.test(ch)) return 2;
  const wide =
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf && code !== 0x303f) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x20000 && code <= 0x3fffd);
  return wide ? 2 : 1;
}

function unitsOf(line: string): Unit[] {
  const units: Unit[] = [];
  let i = 0;
  while (i < line.length) {
    escapePattern.lastIndex = i;
    const ansi = escapePattern.exec(line);
    if (ansi !== null) {
      units.push({ escape: true, text: ansi[0] });
      i += ansi[0].length;
      continue;
    }
    const ch = String.fromCodePoint(line.codePointAt(i) ?? 0);
    units.push({ escape: false, text: ch, width: charWidth(ch) });
    i += ch.length;
  }
  return units;
}

/** The columns `text` takes on a terminal: escapes count nothing, wide characters two. */
export function visibleWidth(text: string): number {
  return unitsOf(text).reduce((sum, u) => sum + (u.escape ? 0 : u.width), 0);
}

/** The text without its ANSI escapes. */
export function stripEscapes(text: string): string {
  return unitsOf(text)
    .filter((u) => !u.escape)
    .map((u) => u.text)
    .join('');
}

/**
 * What continuation lines of `plain` start with: its indent, then either its
 * gutter (`│ `, kept so live output stays marked) or the width of its marker
 * (`● `, `✔ `, `? `, `· `), so the text lines up under the first word.
 */
export function hangOf(plain: string): string {
  const match = /^( *)(?:(│ )|([●✔✘?·•>→-] ))?/u.exec(plain);
  const indent = match?.[1] ?? '';
  if (match?.[2] !== undefined) return `${indent}${match[2]}`;
  if (match?.[3] !== undefined) return `${indent}  `;
  return indent;
}

/** What each SGR close code ends: `22` ends bold and dim, `39` the foreground colour, … */
const closes: Readonly<Record<string, (code: number) => boolean>> = {
  '22': (c) => c === 1 || c === 2,
  '23': (c) => c === 3,
  '24': (c) => c === 4,
  '27': (c) => c === 7,
  '29': (c) => c === 9,
  '39': (c) => (c >= 30 && c <= 38) || (c >= 90 && c <= 97),
  '49': (c) => (c >= 40 && c <= 48) || (c >= 100 && c <= 107),
};

/** Tracks the SGR codes (colours, bold) in force, so a broken line can close them and the next reopen them. */
class Colours {
  #open: { readonly code: number; readonly sequence: string }[] = [];

  apply(sequence: string): void {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: an SGR sequence starts with ESC
    const sgr = /^\u001b\[([0-9;]*)m$/.exec(sequence);
    if (sgr === null) return;
    const params = (sgr[1] ?? '').split(';');
    const first = params[0] ?? '';
    if (first === '' || first === '0') {
      this.#open = [];
      return;
    }
    const ends = closes[first];
    if (ends !== undefined) this.#open = this.#open.filter((o) => !ends(o.code));
    else this.#open.push({ code: Number(first), sequence });
  }

  get open(): string {
    return this.#open.map((o) => o.sequence).join('');
  }
}

/**
 * Wraps one line (no newlines) at word boundaries to `width` columns.
 * Continuation lines start with {@link hangOf} the line; a word wider than
 * what is left of a fresh line is cut hard.
 */
export function wrapLine(line: string, width: number): string[] {
  if (width <= 0 || visibleWidth(line) <= width) return [line];
  const units = unitsOf(line);
  let hang = hangOf(stripEscapes(line));
  // A hang that leaves less than half the width would stack words one per line: keep the line's own indent only, or none.
  if (width - visibleWidth(hang) < width / 2) hang = '';
  const hangWidth = visibleWidth(hang);
  const colours = new Colours();
  const out: string[] = [];
  let current = '';
  let column = 0;
  let atLineStart = true;

  const breakLine = (): void => {
    out.push(colours.open === '' ? current.trimEnd() : `${current.trimEnd()}\u001b[0m`);
    current = `${colours.open}${hang}`;
    column = hangWidth;
    atLineStart = true;
  };
  const put = (unit: Unit): void => {
    current += unit.text;
    if (unit.escape) colours.apply(unit.text);
    else column += unit.width;
  };

  // Words and the spaces between them, each with the escapes inside it.
  const pieces: { space: boolean; units: Unit[]; width: number }[] = [];
  for (const unit of units) {
    const space = !unit.escape && unit.text === ' ';
    const last = pieces.at(-1);
    if (last !== undefined && (unit.escape || last.space === space)) {
      last.units.push(unit);
      last.width += unit.escape ? 0 : unit.width;
    } else {
      pieces.push({ space, units: [unit], width: unit.escape ? 0 : unit.width });
    }
  }

  let pendingSpace: Unit[] = [];
  let first = true;
  for (const piece of pieces) {
    if (piece.space) {
      // The line's own indent is kept as it is; spaces between words wait to see whether the next word fits.
      if (first) for (const u of piece.units) put(u);
      else pendingSpace = piece.units;
      first = false;
      continue;
    }
    first = false;
    const spaceWidth = pendingSpace.reduce((sum, u) => sum + (u.escape ? 0 : u.width), 0);
    if (column + spaceWidth + piece.width <= width || (atLineStart && column + piece.width <= width)) {
      for (const u of pendingSpace) put(u);
    } else {
      // The spaces are dropped at the break; their escapes still count.
      for (const u of pendingSpace) if (u.escape) put(u);
      if (piece.width <= width - hangWidth || column > hangWidth) breakLine();
    }
    pendingSpace = [];
    for (const u of piece.units) {
      if (!u.escape && column + u.width > width && column > hangWidth) breakLine();
      put(u);
      if (!u.escape) atLineStart = false;
    }
  }
  for (const u of pendingSpace) if (u.escape) put(u);
  out.push(current.trimEnd());
  return out;
}

/** Wraps every line of `text` to `width` columns (see {@link wrapLine}). */
export function wrapText(text: string, width: number): string {
  return text
    .split('\n')
    .flatMap((line) => wrapLine(line, width))
    .join('\n');
}
