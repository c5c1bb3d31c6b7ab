// Benchmarks of tool-web, printed as ratios against a baseline measured in the same run. Never fails.
//   web_fetch of a 1 MB HTML page from a local server (format "html": fetch, checks, decoding, no conversion)
//   against a bare `fetch` + `text()` of the same page. Target: at most 1.5x.
//   The HTML-to-Markdown conversion (Readability + Turndown) is timed on its own and printed beside it.
//   Decoding 1 MB of windows-1252 by the WHATWG tables (decodeBody) against Node's own
//   TextDecoder('windows-1252'), which is wrong on Node 20 but native. Target: at most 2x.
import { createServer } from 'node:http';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { medianTimes } from '../../../scripts/bench/interleave.mjs';
import { recordRatio } from '../../../scripts/bench/report.mjs';
import { convertHtml, decodeBody, toolWeb } from '../dist/index.js';

const runs = 15;
const warmup = 3;
const ms = (x) => `${x.toFixed(2)} ms`;

function page(bytes) {
  const head = `<!doctype html><html><head><meta charset="utf-8"><title>Bench page</title><script>var tracker = 1;</script></head><body>
<header><nav><a href="/">Home</a> <a href="/a">A</a> <a href="/b">B</a></nav></header><main><article><h1>A long article</h1>`;
  const tail = '</article></main><footer>footer text</footer></body></html>';
  const parts = [head];
  let size = head.length + tail.length;
  for (let i = 0; size < bytes; i += 1) {
    const p =
      i % 12 === 0
        ? `<h2>Section ${i}</h2>`
        : `<p>Paragraph ${i}: the tide tables for this harbour list high and low water, with <a href="/ref/${i}">a reference</a> and <em>some emphasis</em> so the converter has work to do.</p>\n`;
    parts.push(p);
    size += p.length;
  }
  parts.push(tail);
  return parts.join('');
}

/** Median times of several functions, run in turn within each round so machine load hits them alike. */
const timeTogether = (fns, rounds = runs) => medianTimes(fns, { warmup, rounds });

const html = page(1024 * 1024);
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) });
  res.end(html);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/page`;

try {
  const t = await createTestHost({ plugins: [toolWeb({ allow: ['127.0.0.1'], ports: [server.address().port] })] });
  const call = async (format) => {
    const outcome = await t.call('web_fetch', { url, format });
    if (outcome.status !== 'ok') throw new Error(JSON.stringify(outcome));
    return outcome.output;
  };
  const [bare, webFetchHtml] = await timeTogether([
    async () => {
      const res = await fetch(url);
      await res.text();
    },
    () => call('html'),
  ]);
  const [conversion, webFetchMarkdown] = await timeTogether([() => convertHtml(html, url, 'markdown'), () => call('markdown')], 5);
  const markdown = await call('markdown');

  console.log(
    `tool-web bench: a ${(Buffer.byteLength(html) / 1024 / 1024).toFixed(2)} MB HTML page from 127.0.0.1, median of ${runs} runs (conversion: 5)`,
  );
  console.log(`  bare fetch + text()                        ${ms(bare)}  (baseline)`);
  console.log(`  web_fetch, format html (before conversion)  ${ms(webFetchHtml)}`);
  recordRatio({
    pkg: 'tool-web',
    label: 'web_fetch (format html) vs bare fetch + text(), 1 MB page',
    ratio: webFetchHtml / bare,
    target: 1.5,
  });
  console.log(`  conversion alone (Readability + Turndown)   ${ms(conversion)}  ${(conversion / bare).toFixed(2)}x the baseline`);
  console.log(
    `  web_fetch, format markdown (whole call)     ${ms(webFetchMarkdown)}  ${(webFetchMarkdown / bare).toFixed(2)}x the baseline, ${markdown.content.length} characters out`,
  );

  // Bytes of Western European text with the 0x80-0x9F characters windows-1252 adds (€, ’, “, ”, —, œ).
  const latin = Buffer.from(
    'Caf\xe9 cr\xe8me br\xfbl\xe9e \x97 \x93na\xefve\x94 fa\xe7ade, \x9cuvre 5 \x80 \x92 '.repeat(20_000),
    'latin1',
  );
  const native = new TextDecoder('windows-1252');
  const [nativeDecode, tableDecode] = await timeTogether([
    () => native.decode(latin),
    () => decodeBody(latin, 'text/plain; charset=windows-1252', 'text'),
  ]);
  console.log(`  TextDecoder('windows-1252'), ${(latin.length / 1024 / 1024).toFixed(2)} MB         ${ms(nativeDecode)}  (baseline)`);
  console.log(`  decodeBody, windows-1252 by table           ${ms(tableDecode)}`);
  recordRatio({ pkg: 'tool-web', label: 'windows-1252 decode by table vs TextDecoder', ratio: tableDecode / nativeDecode, target: 2 });
} finally {
  server.close();
}
