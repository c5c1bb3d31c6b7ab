#!/usr/bin/env node
// `pnpm run docs:check`: the docs site (docs/api, built by `pnpm run docs`) as a reader sees it.
// Fails, with what is wrong page by page, when
//   - a relative link in the Markdown the site is built from (docs/**, the READMEs) names a missing file,
//   - a page links to a page, file or anchor the site does not have,
//   - an "On This Page" link (or any other link) has no text,
//   - a chart is left as Mermaid source, or the pipeline page shows no drawn chart,
//   - a page logs a console or script error, a request fails, or a request leaves the site,
//   - a page still documents zod's re-exported namespace, shows the project's title twice,
//     or core's page has a section heading with nothing under it.
// Chromium (Debian's `chromium`) renders the index, every package's page and every document from a
// server on 127.0.0.1; the HTML of all other pages is read from disk. Without Chromium the check
// is skipped with a warning, except in CI (CI set), where it fails.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { openReaderTab } from './docs/reader-tab.mjs';
import { siteLinkChecker } from './docs/site-links.mjs';
import { serveSite } from './docs/site-server.mjs';
import { missingSourceLinks } from './docs/source-links.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const site = join(root, 'docs', 'api');
const browserPath = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
const corePage = '/modules/_deepseek-ai_dsh-core.html';
/** Pages whose documents draw a chart: each must show at least one. */
const chartPages = ['/documents/pipeline.html'];

if (!existsSync(join(site, 'index.html'))) fail(`no site at ${site}: run \`pnpm run docs\` first`);
if (!browserPath) {
  if (process.env.CI) fail('Chromium is not installed (apt-get install chromium)');
  console.warn('docs check SKIPPED: Chromium is not installed (apt-get install chromium)');
  process.exit(0);
}

/** Every HTML page of the site, as URL paths. */
function sitePages(dir = site, prefix = '/') {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return sitePages(join(dir, entry.name), `${prefix}${entry.name}/`);
    return entry.name.endsWith('.html') ? [`${prefix}${entry.name}`] : [];
  });
}

/** What is wrong with a page read from disk: its links, and "On This Page" links without text. */
function staticProblems(path, linkProblem) {
  const html = readFileSync(join(site, path), 'utf8');
  const problems = [];
  for (const [, href = ''] of html.matchAll(/<a [^>]*href="([^"]*)"/g)) {
    const decoded = href.replace(/&amp;/g, '&');
    if (decoded === '' || /^[a-z][a-z0-9+.-]*:/i.test(decoded)) continue;
    const problem = linkProblem(decoded, path);
    if (problem) problems.push(problem);
  }
  const onThisPage = html.match(/<details[^>]*tsd-page-navigation[\s\S]*?<\/details>/)?.[0] ?? '';
  for (const [, href, text = ''] of onThisPage.matchAll(/<a href="([^"]*)"[^>]*>([\s\S]*?)<\/a>/g)) {
    if (text.replace(/<[^>]*>/g, '').trim() === '') problems.push(`the "On This Page" link to ${href} has no text`);
  }
  return problems;
}

const started = performance.now();
/** What is wrong, by page (or by source file). */
const problems = new Map();
const report = (where, found) => {
  if (found.length > 0) problems.set(where, [...(problems.get(where) ?? []), ...found]);
};
for (const { source, problem } of missingSourceLinks(root)) report(source, [problem]);
const server = await serveSite(site);
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
try {
  const { problemOf } = siteLinkChecker(site, server.origin);
  const pages = sitePages();
  for (const path of [corePage, ...chartPages]) if (!pages.includes(path)) report(path, ['the site has no such page']);
  for (const path of pages) if (path.includes('/_zod') || /\.z\.[^/]*\.html$/.test(path)) report(path, ["documents zod's namespace"]);
  const rendered = pages.filter((path) => path === '/index.html' || path.startsWith('/modules/') || path.startsWith('/documents/'));
  // Two tabs take turns at the queue: one waits on its page's scripts while the other works.
  const tabs = await Promise.all([1, 2].map(() => openReaderTab(browser, server.origin, problemOf)));
  const queue = [...rendered];
  const readings = new Map();
  await Promise.all(
    tabs.map(async (tab) => {
      for (let path = queue.shift(); path; path = queue.shift()) {
        readings.set(path, await tab.read(path, { expectChart: chartPages.includes(path) }));
      }
    }),
  );
  for (const path of rendered) {
    const { problems: found, emptySections } = readings.get(path);
    const empty = path === corePage ? emptySections.map((heading) => `the section "${heading}" is empty`) : [];
    report(path, [...found, ...empty]);
  }
  for (const path of pages.filter((p) => !rendered.includes(p))) report(path, staticProblems(path, problemOf));
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `docs check: ${rendered.length} pages read in Chromium, the HTML of ${pages.length - rendered.length} more checked, in ${seconds} s`,
  );
} finally {
  await browser.close();
  await server.close();
}
if (problems.size > 0) {
  const list = [...problems].map(([where, found]) => `${where}\n${found.map((problem) => `  - ${problem}`).join('\n')}`);
  fail(`${[...problems.values()].flat().length} problems on ${problems.size} pages or files\n${list.join('\n')}`);
}
console.log('docs check: every link resolves and has text, charts are drawn, no errors or failed requests');

function fail(message) {
  console.error(`docs check FAILED: ${message}`);
  process.exit(1);
}
