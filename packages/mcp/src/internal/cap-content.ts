import type { McpContent } from '../result-mapping.js';

/** Content parts within a character budget, and how many characters were left out. */
export interface CappedContent {
  readonly content: McpContent[];
  /** Characters of text and base64 data kept (markers not counted). */
  readonly keptChars: number;
}

/** The marker put where text was cut out of the middle of a result. */
export const cutMarker = (omitted: number, limit: number): string =>
  `\n\n… [${omitted} characters cut from the middle: the result passed its limit of ${limit}] …\n\n`;

/**
 * Keeps the head and the tail of a result's parts within `budget` characters
 * (like bash's output cap, so the end of a long text, often its status or
 * error, survives): parts are kept whole from the front up to half the
 * budget, then from the back with what is left; the part where each side
 * stops is cut if it is text, and one marker says how much text was cut out
 * between them. Binary parts and resources are never cut in half: in the
 * middle they become `omitted` notes. `sizes[i]` is the size of `parts[i]`.
 */
export function capContent(parts: readonly McpContent[], sizes: readonly number[], budget: number): CappedContent {
  const total = sizes.reduce((a, b) => a + b, 0);
  if (total <= budget) return { content: [...parts], keptChars: total };
  const size = (i: number): number => sizes[i] ?? 0;

  // The head: whole parts while they fit in half the budget, then a cut of the part where it stops.
  let used = 0;
  let first = 0;
  while (first < parts.length && used + size(first) <= Math.ceil(budget / 2)) used += size(first++);
  const firstPart = parts[first] as McpContent; // exists: the parts do not all fit
  const headCut = firstPart.type === 'text' ? headOf(firstPart.text, Math.ceil(budget / 2) - used) : '';
  used += headCut.length;

  // The tail: whole parts from the back while they fit in the rest, then a cut of the part where it stops.
  let last = parts.length - 1;
  while (last > first && used + size(last) <= budget) used += size(last--);
  const lastPart = parts[last] as McpContent;
  const tailRoom = lastPart.type === 'text' ? budget - used : 0;
  const tailCut = tailOf(lastPart.type === 'text' ? lastPart.text.slice(last === first ? headCut.length : 0) : '', tailRoom);
  used += tailCut.length;

  let cutText = 0;
  for (let i = first; i <= last; i++) {
    const part = parts[i] as McpContent;
    if (part.type === 'text') cutText += part.text.length;
  }
  cutText -= headCut.length + tailCut.length;
  const marker = cutText > 0 ? cutMarker(cutText, budget) : '';

  const content: McpContent[] = parts.slice(0, first);
  if (first === last && firstPart.type === 'text') {
    content.push({ type: 'text', text: headCut + marker + tailCut });
  } else {
    let markerPlaced = false;
    for (let i = first; i <= last; i++) {
      const part = parts[i] as McpContent;
      if (part.type !== 'text') {
        content.push(omittedNote(part, size(i)));
      } else if (i === first) {
        content.push({ type: 'text', text: headCut + marker });
        markerPlaced = true;
      } else if (i === last) {
        const text = (markerPlaced ? '' : marker) + tailCut;
        if (text !== '') content.push({ type: 'text', text });
        markerPlaced = true;
      } else if (!markerPlaced && marker !== '') {
        content.push({ type: 'text', text: marker.trim() });
        markerPlaced = true;
      }
    }
  }
  content.push(...parts.slice(last + 1));
  return { content, keptChars: used };
}

/** The note that stands for a part left out whole. */
export function omittedNote(part: McpContent, chars: number): McpContent {
  if (part.type === 'omitted') return part;
  const mimeType = 'mimeType' in part && typeof part.mimeType === 'string' ? part.mimeType : undefined;
  return { type: 'omitted', original: part.type, ...(mimeType === undefined ? {} : { mimeType }), chars };
}

/** The first `n` code units of a text, one less if the last would split a surrogate pair. */
export function headOf(text: string, n: number): string {
  if (n <= 0) return '';
  if (n >= text.length) return text;
  return text.slice(0, isHighSurrogate(text.charCodeAt(n - 1)) ? n - 1 : n);
}

/** The last `n` code units of a text, one less if the first would split a surrogate pair. */
export function tailOf(text: string, n: number): string {
  if (n <= 0) return '';
  if (n >= text.length) return text;
  const start = text.length - n;
  return text.slice(isLowSurrogate(text.charCodeAt(start)) ? start + 1 : start);
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;
