#!/usr/bin/env node
// `pnpm run docs:check`: the built API site (docs/api) as a reader's browser sees it. Serves it on
// 127.0.0.1, renders the index and every package's page in headless Chromium (the navigation is
// built by the site's script, so a browser is needed to see those links), reads the links of every
// other page from its HTML, and fails when
//   - an internal link points at a page or file the site does not have,
//   - a page still documents zod's re-exported namespace (it buried the site in 1,400 pages),
//   - core's page has a section heading with nothing under it,
//   - a page shows the project's title twice.
// Chromium comes from Debian's `chromium` package. Without it the check is skipped with a
// warning, except in CI (CI set), where it fails.
import { createReadStream, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const site = fileURLToPath(new URL('../docs/api/', import.meta.url));
const browserPath = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
const corePage = 'modules/_deepseek-ai_dsh-core.html';
const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.json': 'application/json' };

if (!existsSync(join(site, 'index.html'))) fail(`no site at ${site}: run \`pnpm run docs\` first`);
if (!browserPath) {
  if (process.env.CI) fail('Chromium is not installed (apt-get install chromium)');
  console.warn('docs check SKIPPED: Chromium is not installed (apt-get install chromium)');
  process.exit(0);
}

/** The site's file for a URL path, or undefined when there is none. */
function fileOf(pathname) {
  const path = normalize(join(site, decodeURIComponent(pathname)));
  if (!path.startsWith(site)) return undefined;
  const file = pathname.endsWith('/') ? join(path, 'index.html') : path;
  return existsSync(file) && statSync(file).isFile() ? file : undefined;
}

const server = createServer((request, response) => {
  const file = fileOf(new URL(request.url ?? '/', 'http://x').pathname);
  if (!file) {
    response.writeHead(404).end();
    return;
  }
  response.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
  createReadStream(file).pipe(response);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;

const browser = await chromium.launch({
  executablePath: browserPath,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ],
});
const problems = [];
/** Every HTML page of the site, as URL paths. */
function sitePages(dir = site, prefix = '/') {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return sitePages(join(dir, entry.name), `${prefix}${entry.name}/`);
    return entry.name.endsWith('.html') ? [`${prefix}${entry.name}`] : [];
  });
}
/** Checks one page's links and headings; `waitForNav` also waits for the script-built navigation. */
async function checkPage(page, path, waitForNav) {
  const response = await page.goto(origin + path, { waitUntil: waitForNav ? 'load' : 'domcontentloaded' });
  if (!response?.ok()) {
    problems.push(`${path}: HTTP ${response?.status()}`);
    return;
  }
  if (waitForNav) {
    await page
      .waitForFunction(() => document.querySelector('#tsd-nav-container a'), null, { timeout: 30_000 })
      .catch(() => problems.push(`${path}: the navigation never appeared`));
  }
  const facts = await page.evaluate(() => ({
    links: [...document.querySelectorAll('a[href]')].map((a) => a.href),
    titles: [...document.querySelectorAll('h1')].map((h) => h.textContent?.trim() ?? ''),
    emptySections: [...document.querySelectorAll('section, details.tsd-accordion')]
      .filter((s) => s.querySelector('h2, h3, summary') && !s.querySelector('a, p, li, code, pre, table'))
      .map((s) => s.querySelector('h2, h3, summary')?.textContent?.trim() ?? '?'),
  }));
  if (path.includes('/_zod') || /\.z\.[^/]*\.html$/.test(path)) problems.push(`${path}: documents zod's namespace`);
  const repeated = facts.titles.filter((title, i) => title !== '' && facts.titles.indexOf(title) !== i);
  if (repeated.length > 0) problems.push(`${path}: the heading "${repeated[0]}" appears twice`);
  if (path === `/${corePage}`) for (const heading of facts.emptySections) problems.push(`${path}: the section "${heading}" is empty`);
  for (const link of facts.links) {
    const url = new URL(link);
    if (url.origin === origin && !fileOf(url.pathname)) problems.push(`${path}: links to ${url.pathname}, which the site does not have`);
  }
}
try {
  // Chromium renders the index (whose script builds the navigation every page shares) and every
  // package's module page; the links written into all other pages are read from their HTML.
  const pages = sitePages();
  if (!pages.includes(`/${corePage}`)) problems.push(`core's page ${corePage} is missing`);
  const rendered = pages.filter((path) => path === '/index.html' || path.startsWith('/modules/') || path.startsWith('/documents/'));
  const page = await browser.newPage();
  for (const path of rendered) await checkPage(page, path, path === '/index.html');
  for (const path of pages.filter((p) => !rendered.includes(p))) {
    if (/\.z\.[^/]*\.html$/.test(path)) problems.push(`${path}: documents zod's namespace`);
    const html = readFileSync(join(site, path), 'utf8');
    for (const [, href] of html.matchAll(/<a [^>]*href="([^"#]*)[^"]*"/g)) {
      if (href === '' || /^[a-z]+:/i.test(href)) continue;
      const url = new URL(href, origin + path);
      if (!fileOf(url.pathname)) problems.push(`${path}: links to ${url.pathname}, which the site does not have`);
    }
  }
  console.log(`docs check: ${rendered.length} pages rendered in Chromium, the links of ${pages.length} pages checked`);
} finally {
  await browser.close();
  server.close();
}
if (problems.length > 0) fail(`\n${[...new Set(problems)].join('\n')}`);
console.log("docs check: every internal link resolves; no zod pages; no empty section on core's page");

function fail(message) {
  console.error(`docs check FAILED: ${message}`);
  process.exit(1);
}
