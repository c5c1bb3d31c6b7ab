import { TextDecoder } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytes, startPageServer } from './fixtures/page-server.js';
import { decodeBody } from './index.js';

// Node's TextDecoder (ICU) differs from the WHATWG Encoding Standard for some single-byte
// encodings: windows-1252 and its labels (ISO-8859-1, ASCII, …) on Node 20 only, the rest on
// Node 20, 22 and 24. Every expected string here is written from the standard's index files.

let pages: Awaited<ReturnType<typeof startPageServer>>;
beforeAll(async () => {
  pages = await startPageServer();
});
afterAll(() => pages.close());

const windows1252Row80 =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';
const row80 = Array.from({ length: 32 }, (_, i) => 0x80 + i);

describe('windows-1252', () => {
  it('decodes 0x80, 0x8C and 0x92 of a <meta charset="windows-1252"> page as €, Œ and ’', async () => {
    const out = await pages.fetchText({
      headers: { 'content-type': 'text/html' },
      body: bytes('<html><head><meta charset="windows-1252"></head><body>', [0x80, 0x8c, 0x92], '</body></html>'),
    });
    expect(out).toMatchObject({ charset: 'windows-1252', charsetSource: 'meta' });
    expect(out.content).toBe('<html><head><meta charset="windows-1252"></head><body>€Œ’</body></html>');
  });

  it.each(['ISO-8859-1', 'latin1', 'us-ascii', 'windows-1252'])('decodes 0x80–0x9F by the standard for charset=%s', async (label) => {
    const out = await pages.fetchText({ headers: { 'content-type': `text/plain; charset=${label}` }, body: bytes(row80) });
    expect(out).toMatchObject({ charset: 'windows-1252', charsetSource: 'header', content: windows1252Row80 });
  });
});

/** The bytes where Node's decoder is wrong (and a few it gets right), with the standard's code points. */
const deviations: readonly { label: string; encoding: string; bytes: readonly number[]; text: string }[] = [
  // IBM866: Node swaps 0x1A, 0x1C and 0x7F; the standard keeps 0x00–0x7F ASCII, as in every single-byte encoding.
  { label: 'cp866', encoding: 'ibm866', bytes: [0x1a, 0x1c, 0x7f, 0x8f, 0xa0], text: '\u001a\u001c\u007fПа' },
  // KOI8-U: 0xAE and 0xBE are ў and Ў, not box-drawing characters.
  { label: 'koi8-u', encoding: 'koi8-u', bytes: [0xae, 0xbe, 0xc1], text: '\u045e\u040eа' },
  // windows-874: 0xDB–0xDE and 0xFC–0xFF are unmapped, where Node answers with private-use characters.
  {
    label: 'tis-620',
    encoding: 'windows-874',
    bytes: [0xa1, 0xdb, 0xdc, 0xdd, 0xde, 0xfc, 0xfd, 0xfe, 0xff],
    text: `\u0e01${'\ufffd'.repeat(8)}`,
  },
  // windows-1253: 0xAA is unmapped.
  { label: 'windows-1253', encoding: 'windows-1253', bytes: [0xaa, 0xc1], text: '\ufffd\u0391' },
  // windows-1255: 0xCA is the Hebrew point holam haser for vav, U+05BA.
  { label: 'windows-1255', encoding: 'windows-1255', bytes: [0xca, 0xe0], text: '\u05ba\u05d0' },
  // ISO-8859-16: Node has no decoder for it at all.
  { label: 'ISO-8859-16', encoding: 'iso-8859-16', bytes: [0xa1, 0xa4, 0xaa, 0xde], text: '\u0104\u20ac\u0218\u021a' },
];

describe('single-byte encodings that Node decodes wrongly', () => {
  it.each(deviations)('decodes $encoding by the standard', async ({ label, encoding, bytes: body, text }) => {
    const out = await pages.fetchText({ headers: { 'content-type': `text/plain; charset=${label}` }, body: bytes(body) });
    expect(out).toMatchObject({ charset: encoding, charsetSource: 'header', content: text });
    expect(out.notice).toBeUndefined();
  });
});

/** Every byte where the standard and Node's decoder may disagree, by encoding: the standard's code point. */
const knownDeviations: Readonly<Record<string, Readonly<Record<number, number>>>> = {
  ibm866: { 26: 0x1a, 28: 0x1c, 127: 0x7f },
  'koi8-u': { 174: 0x45e, 190: 0x40e },
  'windows-874': { 219: 0xfffd, 220: 0xfffd, 221: 0xfffd, 222: 0xfffd, 252: 0xfffd, 253: 0xfffd, 254: 0xfffd, 255: 0xfffd },
  'windows-1252': Object.fromEntries(row80.map((b, i) => [b, windows1252Row80.charCodeAt(i)])),
  'windows-1253': { 170: 0xfffd },
  'windows-1255': { 202: 0x5ba },
};
const singleByte = [
  'ibm866',
  'iso-8859-2',
  'iso-8859-3',
  'iso-8859-4',
  'iso-8859-5',
  'iso-8859-6',
  'iso-8859-7',
  'iso-8859-8',
  'iso-8859-8-i',
  'iso-8859-10',
  'iso-8859-13',
  'iso-8859-14',
  'iso-8859-15',
  'koi8-r',
  'koi8-u',
  'macintosh',
  'windows-874',
  'windows-1250',
  'windows-1251',
  'windows-1252',
  'windows-1253',
  'windows-1254',
  'windows-1255',
  'windows-1256',
  'windows-1257',
  'windows-1258',
  'x-mac-cyrillic',
];

describe('the single-byte tables', () => {
  // ICU is an independent transcription of the same tables: where it agrees, both are right;
  // where it does not, the difference must be one of the deviations listed above.
  it.each(singleByte)('agree with Node for %s on all 256 bytes but the known deviations', (encoding) => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    const ours = decodeBody(all, `text/plain; charset=${encoding}`, 'text');
    expect(ours.charset).toBe(encoding);
    const node = new TextDecoder(encoding).decode(all);
    expect(ours.text.length).toBe(256);
    for (let b = 0; b < 256; b += 1) {
      const expected = knownDeviations[encoding]?.[b] ?? node.charCodeAt(b);
      expect({ byte: b, code: ours.text.charCodeAt(b) }).toEqual({ byte: b, code: expected });
    }
  });

  it('maps x-user-defined bytes 0x80–0xFF to U+F780–U+F7FF and keeps ASCII', () => {
    const out = decodeBody(bytes('a', [0x80, 0xff]), 'text/plain; charset=x-user-defined', 'text');
    expect(out).toEqual({ text: 'a\uf780\uf7ff', charset: 'x-user-defined', source: 'header' });
  });
});
