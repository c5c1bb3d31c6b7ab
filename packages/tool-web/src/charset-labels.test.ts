import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytes, startPageServer } from './fixtures/page-server.js';

// How web_fetch picks the encoding: the Encoding Standard's labels and BOM sniffing, Fetch's
// Content-Type parsing, and the HTML standard's <meta> prescan, against a real server's bytes.
// Byte 0x92 is ’ in windows-1252 and т in KOI8-R (0xD4); 0xAE is ў in KOI8-U.

let pages: Awaited<ReturnType<typeof startPageServer>>;
beforeAll(async () => {
  pages = await startPageServer();
});
afterAll(() => pages.close());

const html = (head: string, body: readonly number[] = [0x92]) => bytes(`<html><head>${head}</head><body>`, body, '</body></html>');
const bodyText = (content: string) => /<body>(.*)<\/body>/s.exec(content)?.[1];

describe('labels', () => {
  it.each([
    ['charset=Windows-1252', 'windows-1252'],
    ['charset="  LATIN1 \t"', 'windows-1252'],
    ['charset=L1', 'windows-1252'],
    ['charset=ascii', 'windows-1252'],
    ['CHARSET=cp819', 'windows-1252'],
    ['charset="wind\\ows-1252"', 'windows-1252'],
    ['charset=KOI8-R', 'koi8-r'],
    ['charset=koi', 'koi8-r'],
  ])('resolves Content-Type "text/plain; %s" to %s', async (parameter, encoding) => {
    const out = await pages.fetchText({ headers: { 'content-type': `text/plain; ${parameter}` }, body: bytes([0x92, 0xd4]) });
    expect(out).toMatchObject({ charset: encoding, charsetSource: 'header' });
    expect(out.content).toBe(encoding === 'koi8-r' ? '\u2593т' : '’Ô');
  });

  it('skips a label the standard does not list (UTF-32, which browsers must not support) with a notice', async () => {
    const out = await pages.fetchText({ headers: { 'content-type': 'text/plain; charset=UTF-32' }, body: bytes('ok') });
    expect(out).toMatchObject({ charset: 'utf-8', charsetSource: 'default', content: 'ok' });
    expect(out.notice).toMatch(/unknown charset "UTF-32" ignored/);
  });

  it('reads ISO-2022-KR and its kin as the replacement encoding: one U+FFFD and a notice, never their bytes', async () => {
    const out = await pages.fetchText({ headers: { 'content-type': 'text/html; charset=ISO-2022-KR' }, body: html('<title>x</title>') });
    expect(out).toMatchObject({ charset: 'replacement', charsetSource: 'header', content: '\ufffd' });
    expect(out.notice).toMatch(/"replacement" encoding/);
  });

  it('decodes x-user-defined from the header into the private-use area', async () => {
    const out = await pages.fetchText({ headers: { 'content-type': 'text/plain; charset=x-user-defined' }, body: bytes('a', [0x80]) });
    expect(out).toMatchObject({ charset: 'x-user-defined', content: 'a\uf780' });
  });
});

describe('Content-Type', () => {
  it('prefers the header charset to the page <meta>', async () => {
    const out = await pages.fetchText({
      headers: { 'content-type': 'text/html; charset=koi8-r' },
      body: html('<meta charset="windows-1252">'),
    });
    expect(out).toMatchObject({ charset: 'koi8-r', charsetSource: 'header' });
  });

  it('takes the first charset parameter of a header that repeats it', async () => {
    const out = await pages.fetchText({ headers: { 'content-type': 'text/html; charset=koi8-r; charset=windows-1252' }, body: html('') });
    expect(out).toMatchObject({ charset: 'koi8-r', charsetSource: 'header' });
  });

  it('ignores "charset =…" (not a parameter name) and reads the <meta> instead', async () => {
    const out = await pages.fetchText({
      headers: { 'content-type': 'text/html; charset =koi8-r' },
      body: html('<meta charset="windows-1252">'),
    });
    expect(out).toMatchObject({ charset: 'windows-1252', charsetSource: 'meta' });
    expect(bodyText(out.content)).toBe('’');
  });

  it('skips an unknown header label with a notice and falls back to the <meta>', async () => {
    const out = await pages.fetchText({
      headers: { 'content-type': 'text/html; charset=x-klingon' },
      body: html('<meta charset="windows-1252">'),
    });
    expect(out).toMatchObject({ charset: 'windows-1252', charsetSource: 'meta' });
    expect(out.notice).toMatch(/unknown charset "x-klingon" ignored/);
  });

  it('keeps a charset across a repeated MIME type of the same essence, as Fetch extracts it', async () => {
    const out = await pages.fetchText({ headers: { 'content-type': 'text/html; charset=koi8-r, text/html' }, body: html('') });
    expect(out).toMatchObject({ charset: 'koi8-r', charsetSource: 'header' });
  });

  it('honours UTF-16 from the header (unlike from a <meta>)', async () => {
    const out = await pages.fetchText({ headers: { 'content-type': 'text/plain; charset=utf-16' }, body: Buffer.from('hé', 'utf16le') });
    expect(out).toMatchObject({ charset: 'utf-16le', charsetSource: 'header', content: 'hé' });
  });
});

describe('byte-order marks', () => {
  it('let a UTF-8 BOM win over the header and the <meta>, and strip it', async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<meta charset="koi8-r">é', 'utf8')]);
    const out = await pages.fetchText({ headers: { 'content-type': 'text/html; charset=windows-1252' }, body });
    expect(out).toMatchObject({ charset: 'utf-8', charsetSource: 'bom', content: '<meta charset="koi8-r">é' });
  });

  it('read UTF-16BE by its BOM whatever the header says', async () => {
    const text = Buffer.from('ok ’', 'utf16le').swap16();
    const out = await pages.fetchText({
      headers: { 'content-type': 'text/plain; charset=koi8-r' },
      body: Buffer.concat([Buffer.from([0xfe, 0xff]), text]),
    });
    expect(out).toMatchObject({ charset: 'utf-16be', charsetSource: 'bom', content: 'ok ’' });
  });

  it('keep a second BOM as content, as the standard decodes', async () => {
    const out = await pages.fetchText({
      headers: { 'content-type': 'text/plain' },
      body: bytes([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf], 'x'),
    });
    expect(out).toMatchObject({ charsetSource: 'bom', content: '\ufeffx' });
  });
});

describe('<meta> prescan', () => {
  const meta = async (head: string, body?: readonly number[]) =>
    pages.fetchText({ headers: { 'content-type': 'text/html' }, body: html(head, body) });

  it('reads <META CHARSET=" KOI8-R "> whatever the case and whitespace', async () => {
    const out = await meta('<META CHARSET=" KOI8-R ">', [0xd4]);
    expect(out).toMatchObject({ charset: 'koi8-r', charsetSource: 'meta' });
    expect(bodyText(out.content)).toBe('т');
  });

  it('reads an http-equiv Content-Type pragma with the charset quoted in content', async () => {
    const out = await meta(`<meta content="text/html; CharSet = 'KOI8-U'" http-equiv=Content-Type>`, [0xae]);
    expect(out).toMatchObject({ charset: 'koi8-u', charsetSource: 'meta' });
    expect(bodyText(out.content)).toBe('ў');
  });

  it('ignores content="…charset=…" without the http-equiv pragma', async () => {
    const out = await meta('<meta name="x" content="text/html; charset=windows-1252">');
    expect(out).toMatchObject({ charset: 'utf-8', charsetSource: 'default' });
  });

  it('ignores a <meta> inside a comment or inside another tag’s attribute value', async () => {
    const out = await meta('<!-- <meta charset="koi8-r"> --><link title="<meta charset=koi8-u>"><meta charset="windows-1252">');
    expect(out).toMatchObject({ charset: 'windows-1252', charsetSource: 'meta' });
  });

  it('skips an unknown label with a notice and takes the next <meta>', async () => {
    const out = await meta('<meta charset="x-klingon"><meta charset="windows-1252">');
    expect(out).toMatchObject({ charset: 'windows-1252', charsetSource: 'meta' });
    expect(out.notice).toMatch(/unknown charset "x-klingon" ignored/);
  });

  it('reads a declared UTF-16 as UTF-8 and x-user-defined as windows-1252', async () => {
    expect(await meta('<meta charset="utf-16">')).toMatchObject({ charset: 'utf-8', charsetSource: 'meta' });
    const out = await meta('<meta charset="x-user-defined">');
    expect(out).toMatchObject({ charset: 'windows-1252', charsetSource: 'meta' });
    expect(bodyText(out.content)).toBe('’');
  });

  it('looks no further than the first 1,024 bytes', async () => {
    const out = await meta(`<title>${'x'.repeat(1024)}</title><meta charset="windows-1252">`);
    expect(out).toMatchObject({ charset: 'utf-8', charsetSource: 'default' });
  });

  it('falls back to an XML declaration when there is no <meta>', async () => {
    const body = bytes('<?xml version="1.0" encoding="windows-1252"?><html><body>', [0x92], '</body></html>');
    const out = await pages.fetchText({ headers: { 'content-type': 'application/xhtml+xml' }, body });
    expect(out).toMatchObject({ charset: 'windows-1252', charsetSource: 'meta' });
    expect(bodyText(out.content)).toBe('’');
  });

  it('reads an XML body by its declaration', async () => {
    const body = bytes('<?xml version="1.0" encoding="KOI8-U"?><a>', [0xae], '</a>');
    const out = await pages.fetchText({ headers: { 'content-type': 'application/xml' }, body });
    expect(out).toMatchObject({ charset: 'koi8-u', charsetSource: 'meta', content: '<?xml version="1.0" encoding="KOI8-U"?><a>ў</a>' });
  });
});
