import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { mapResult, resultText } from './result-mapping.js';

const text = (t: string) => ({ type: 'text' as const, text: t });
const image = (chars: number) => ({ type: 'image' as const, mimeType: 'image/png', data: 'A'.repeat(chars) });
const result = (content: CallToolResult['content'], extra: Partial<CallToolResult> = {}): CallToolResult => ({ content, ...extra });
const marker = (cut: number, limit: number) =>
  `\n\n… [${cut} characters cut from the middle: the result passed its limit of ${limit}] …\n\n`;

describe('mapResult', () => {
  it('keeps a result within the limit unchanged, with no truncated field', () => {
    const out = mapResult(result([text('hello'), image(10)], { structuredContent: { ok: true } }), 100);
    expect(out).toEqual({
      content: [text('hello'), { type: 'image', mimeType: 'image/png', data: 'A'.repeat(10) }],
      structuredContent: { ok: true },
    });
  });

  it('keeps the head and the tail of one long text around a marker that counts the cut', () => {
    const long = `BEGIN${'-'.repeat(10_000)}END: exit status 2`;
    const out = mapResult(result([text(long)]), 100);
    expect(out.content).toEqual([text(long.slice(0, 50) + marker(long.length - 100, 100) + long.slice(-50))]);
    expect(out.truncated).toEqual({ originalChars: long.length, keptChars: 100, omittedChars: long.length - 100 });
  });

  it('keeps the last part of a long multi-part result: whole parts at both ends, the cut parts in the middle', () => {
    const parts = ['a'.repeat(30), 'b'.repeat(200), 'c'.repeat(200), 'd'.repeat(20)];
    const out = mapResult(result(parts.map(text)), 100);
    // Head: a (30) and 20 of b; tail: d (20) and the last 30 of c. Cut: 180 of b and 170 of c.
    expect(out.content).toEqual([
      text(parts[0] as string),
      text('b'.repeat(20) + marker(350, 100)),
      text('c'.repeat(30)),
      text(parts[3] as string),
    ]);
    expect(out.truncated).toEqual({ originalChars: 450, keptChars: 100, omittedChars: 350 });
  });

  it('drops text parts wholly in the middle, counting them in the one marker', () => {
    const out = mapResult(result([text('x'.repeat(80)), text('y'.repeat(500)), text('z'.repeat(80))]), 100);
    expect(out.content).toEqual([text('x'.repeat(50) + marker(560, 100)), text('z'.repeat(50))]);
    expect(out.truncated?.omittedChars).toBe(560);
  });

  it('never cuts binary data in half: a big image in the middle becomes an omitted note and the tail text is kept', () => {
    const out = mapResult(result([text('start'), image(5_000), text('the end')]), 100);
    expect(out.content).toEqual([
      text('start'),
      { type: 'omitted', original: 'image', mimeType: 'image/png', chars: 5_000 },
      text('the end'),
    ]);
    expect(out.truncated).toEqual({ originalChars: 5_012, keptChars: 12, omittedChars: 5_000 });
  });

  it('places the marker at the first cut text when the head stops at a binary part', () => {
    const out = mapResult(result([image(5_000), text('t'.repeat(300)), text('u'.repeat(300))]), 100);
    expect(out.content).toEqual([
      { type: 'omitted', original: 'image', mimeType: 'image/png', chars: 5_000 },
      text(marker(500, 100).trim()),
      text('u'.repeat(100)),
    ]);
    expect(out.truncated).toEqual({ originalChars: 5_600, keptChars: 100, omittedChars: 5_500 });
  });

  it('does not split a surrogate pair at either cut', () => {
    const emoji = '😀'.repeat(200); // 400 code units
    const out = mapResult(result([text(emoji)]), 101);
    const kept = (out.content[0] as { text: string }).text;
    const [head, tail] = kept.split(/\n\n… \[\d+ characters cut[^\]]*\] …\n\n/);
    expect(head).toBe('😀'.repeat(25));
    expect(tail).toBe('😀'.repeat(25));
    expect(out.truncated).toEqual({ originalChars: 400, keptChars: 100, omittedChars: 300 });
  });

  it('notes structured content that does not fit in what the content left', () => {
    const out = mapResult(result([text('x'.repeat(90))], { structuredContent: { list: 'y'.repeat(50) } }), 100);
    expect(out.structuredContent).toBeUndefined();
    expect(out.content[1]).toEqual({ type: 'omitted', original: 'structuredContent', chars: 61 });
    expect(out.truncated).toEqual({ originalChars: 151, keptChars: 90, omittedChars: 61 });
  });
});

describe('resultText', () => {
  it('keeps the head and the tail of a long error text', () => {
    const long = `Traceback${'.'.repeat(10_000)}ValueError: bad input`;
    const out = resultText(mapResult(result([text(long)]), 1_000_000), 100);
    expect(out).toBe(`${long.slice(0, 50)}\n…\n${long.slice(-50)}`);
    expect(out.endsWith('ValueError: bad input')).toBe(true);
  });
});
