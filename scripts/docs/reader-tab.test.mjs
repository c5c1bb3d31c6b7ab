// The browser half of `pnpm run docs:check`, against a small site written here: a page a reader
// can use passes, and each way a page can fail a reader is reported.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openReaderTab } from './reader-tab.mjs';
import { siteLinkChecker } from './site-links.mjs';
import { serveSite } from './site-server.mjs';

const chartScripts = '<script defer src="assets/mermaid.tiny.js"></script><script defer src="assets/mermaid-start.js"></script>';
/** A page in the shape the check expects: the site's navigation, an "On This Page" box, a body. */
const page = (onThisPage, body, head = '') =>
  `<!doctype html><html><head>${head}</head><body><ul id="tsd-nav-container"><li><a href="good.html">Good</a></li></ul>` +
  `<details open class="tsd-page-navigation"><summary>On This Page</summary>${onThisPage}</details>${body}</body></html>`;

const pages = {
  'good.html': page(
    '<a href="#bash"><span>bash</span></a>',
    '<h3 id="bash"><code>bash</code></h3><pre class="mermaid">flowchart TD\n  A["call"] --> B["result"]</pre>',
    chartScripts,
  ),
  'bad.html': page(
    '<a href="#_"><span></span></a>',
    [
      '<h3 id="_"><code>bash</code></h3>',
      '<a href="missing.html">a lost page</a> <a href="good.html#nope">a lost heading</a>',
      '<pre><code class="mermaid">flowchart LR\n  A --> B</code></pre>',
      '<img src="http://192.0.2.1/logo.png" alt="logo"><script src="assets/missing.js"></script>',
      '<script>console.error("boom")</script>',
    ].join('\n'),
  ),
  'broken-chart.html': page('', '<pre class="mermaid">flowchart TD\n  A --> --> B[</pre>', chartScripts),
};

// Generous bounds for a loaded machine: they end a hang, they never decide a verdict.
const bound = 600_000;
let site;
let server;
let browser;
let tab;
beforeAll(async () => {
  site = mkdtempSync(join(tmpdir(), 'dsh-docs-site-'));
  mkdirSync(join(site, 'assets'));
  copyFileSync(createRequire(import.meta.url).resolve('@mermaid-js/tiny'), join(site, 'assets', 'mermaid.tiny.js'));
  copyFileSync(new URL('./mermaid-start.js', import.meta.url), join(site, 'assets', 'mermaid-start.js'));
  for (const [name, html] of Object.entries(pages)) writeFileSync(join(site, name), html);
  server = await serveSite(site);
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  tab = await openReaderTab(browser, server.origin, siteLinkChecker(site, server.origin).problemOf);
}, bound);
afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(site, { recursive: true, force: true });
}, bound);

describe('a reader tab', { timeout: bound }, () => {
  it('finds nothing wrong with a page whose links have text and whose chart is drawn', async () => {
    expect((await tab.read('/good.html', { expectChart: true })).problems).toEqual([]);
  });

  it('reports empty links, lost pages and anchors, raw chart source, errors and requests that fail or leave the site', async () => {
    const { problems } = await tab.read('/bad.html', { expectChart: true });
    const expected = [
      'the "On This Page" link to #_ has no text',
      'links to /missing.html, which the site does not have',
      'links to /good.html#nope, and that page has no such anchor',
      'shows Mermaid source as text: "flowchart LR"',
      'shows no drawn chart',
      'requests http://192.0.2.1/logo.png, outside the site (a reader may be offline)',
      `request for ${server.origin}/assets/missing.js answered HTTP 404`,
      'console error: boom',
    ];
    for (const problem of expected) expect(problems).toContain(problem);
  });

  it('reports a chart Mermaid cannot draw', async () => {
    const { problems } = await tab.read('/broken-chart.html');
    expect(problems.some((problem) => problem.startsWith('its charts were not drawn: failed: '))).toBe(true);
  });
});
