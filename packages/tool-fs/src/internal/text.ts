import { FsErrorCode, fsError } from '../errors.js';

/** How a text file is laid out on disk, so an edit can keep it so. */
export interface TextShape {
  readonly bom: boolean;
  /** `\r\n` only when every line break of the file is CRLF; mixed files are matched as they are. */
  readonly eol: '\n' | '\r\n';
  readonly finalNewline: boolean;
}

const bomChar = '\uFEFF';

/** True when the first 8 KiB hold a NUL byte: the usual sign of a binary file. */
export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, 8192);
  for (let i = 0; i < end; i += 1) if (bytes[i] === 0) return true;
  return false;
}

/** Decodes UTF-8, refusing invalid bytes (an edit must not mangle what it cannot represent). */
export function decodeStrict(bytes: Uint8Array, path: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw fsError(
      FsErrorCode.NOT_UTF8,
      `${path} is not valid UTF-8, so it cannot be edited without changing bytes it does not mean to; use write to replace it`,
      {
        path,
      },
    );
  }
}

/** The shape of decoded text (BOM still in place). */
export function shapeOf(raw: string): TextShape {
  const bom = raw.startsWith(bomChar);
  const lf = countOf(raw, '\n');
  const crlf = countOf(raw, '\r\n');
  return { bom, eol: lf > 0 && crlf === lf ? '\r\n' : '\n', finalNewline: raw.endsWith('\n') };
}

/** The text an edit matches against: no BOM, and LF line breaks for a CRLF file. */
export function toWorkingText(raw: string, shape: TextShape): string {
  const text = shape.bom ? raw.slice(1) : raw;
  return shape.eol === '\r\n' ? text.replaceAll('\r\n', '\n') : text;
}

/** A string from the model, in the working text's line breaks. */
export function toWorkingInput(value: string, shape: TextShape): string {
  return shape.eol === '\r\n' ? value.replaceAll('\r\n', '\n') : value;
}

/** Working text back in the file's shape: same BOM, line breaks and final newline. */
export function toDiskText(text: string, shape: TextShape): string {
  let out = text;
  if (out.length > 0) {
    if (shape.finalNewline && !out.endsWith('\n')) out += '\n';
    if (!shape.finalNewline && out.endsWith('\n')) out = out.slice(0, -1);
  }
  if (shape.eol === '\r\n') out = out.replaceAll('\n', '\r\n');
  return shape.bom ? bomChar + out : out;
}

function countOf(text: string, needle: string): number {
  let count = 0;
  let at = text.indexOf(needle);
  while (at !== -1) {
    count += 1;
    at = text.indexOf(needle, at + needle.length);
  }
  return count;
}

/** The 1-based line of each offset in `text`. */
export function linesOf(text: string, offsets: readonly number[]): number[] {
  const lines: number[] = [];
  let line = 1;
  let from = 0;
  for (const offset of offsets) {
    for (let i = from; i < offset; i += 1) if (text.charCodeAt(i) === 10) line += 1;
    from = offset;
    lines.push(line);
  }
  return lines;
}
