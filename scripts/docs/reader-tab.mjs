// One Chromium tab that reads pages of the site as a reader would and reports what such a reader
// would see go wrong: script and console errors, failed requests, requests leaving the site,
// links without text, charts left as source, links to missing pages or anchors.

/** Text a page would show if a chart were left as its Mermaid source. */
const chartSource = /^\s*(graph|flowchart)\s+(TB|TD|BT|RL|LR)\b/m;

/**
 * How long to wait for a page, its navigation or its charts: long enough that only a hang reaches
 * it on a loaded machine, so a page's verdict never depends on the machine's speed.
 */
const hangBound = 300_000;

/** Opens a tab on `browser` for the site served at `origin`; `linkProblem(href, path)` judges links. */
export async function openReaderTab(browser, origin, linkProblem) {
  const page = await browser.newPage();
  page.setDefaultTimeout(hangBound);
  page.setDefaultNavigationTimeout(hangBound);
  let seen = [];
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${origin}/`)) return route.continue();
    seen.push(`requests ${url}, outside the site (a reader may be offline)`);
    return route.abort();
  });
  page.on('console', (message) => {
    if (message.type() === 'error') seen.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => seen.push(`script error: ${error.message}`));
  page.on('requestfailed', (request) => seen.push(`request for ${request.url()} failed (${request.failure()?.errorText})`));
  page.on('response', (response) => {
    if (response.status() >= 400) seen.push(`request for ${response.url()} answered HTTP ${response.status()}`);
  });

  return {
    /**
     * Loads the page at URL path `path`, waits for its navigation and charts, and returns what is
     * wrong with it; `expectChart` says the page must show at least one drawn chart.
     */
    async read(path, { expectChart = false } = {}) {
      seen = [];
      const response = await page.goto(origin + path, { waitUntil: 'load' });
      if (!response?.ok()) return { problems: [`HTTP ${response?.status()}`], emptySections: [] };
      // The site's script builds the navigation from assets/navigation.js after load.
      await page
        .waitForFunction(() => document.querySelector('#tsd-nav-container a'))
        .catch(() => seen.push('the navigation never appeared'));
      // The chart script marks the page "drawing" synchronously and replaces the mark when done.
      await page
        .waitForFunction(() => document.documentElement.dataset.charts !== 'drawing')
        .catch(() => seen.push('its charts never finished drawing'));
      const facts = await page.evaluate(() => {
        const nameless = (a) => (a.textContent ?? '').trim() === '' && !a.getAttribute('aria-label') && !a.querySelector('img[alt]');
        const onThisPage = [...document.querySelectorAll('.tsd-page-navigation a')];
        return {
          links: [...document.querySelectorAll('a[href]')].map((a) => a.href),
          emptyOnThisPage: onThisPage.filter(nameless).map((a) => a.getAttribute('href') ?? ''),
          emptyLinks: [...document.querySelectorAll('a[href]')]
            .filter((a) => !onThisPage.includes(a) && nameless(a))
            .map((a) => a.getAttribute('href') ?? ''),
          charts: [...document.querySelectorAll('pre.mermaid, code.mermaid')].map((chart) => ({
            drawn: chart.querySelector('svg') !== null,
            failed: chart.querySelector('svg[aria-roledescription="error"]') !== null,
          })),
          chartsMark: document.documentElement.dataset.charts ?? '',
          // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered is what a reader sees
          text: document.body.innerText,
          titles: [...document.querySelectorAll('h1')].map((h) => h.textContent?.trim() ?? ''),
          emptySections: [...document.querySelectorAll('section, details.tsd-accordion')]
            .filter((s) => s.querySelector('h2, h3, summary') && !s.querySelector('a, p, li, code, pre, table'))
            .map((s) => s.querySelector('h2, h3, summary')?.textContent?.trim() ?? '?'),
        };
      });
      const problems = [...seen];
      for (const href of facts.emptyOnThisPage) problems.push(`the "On This Page" link to ${href} has no text`);
      for (const href of facts.emptyLinks) problems.push(`a link to ${href} has no text`);
      if (chartSource.test(facts.text)) problems.push(`shows Mermaid source as text: "${facts.text.match(chartSource)?.[0].trim()}"`);
      if (facts.chartsMark.startsWith('failed')) problems.push(`its charts were not drawn: ${facts.chartsMark}`);
      facts.charts.forEach((chart, i) => {
        if (!chart.drawn) problems.push(`chart ${i + 1} is not drawn (no svg)`);
        if (chart.failed) problems.push(`chart ${i + 1} is drawn as Mermaid's error picture`);
      });
      if (expectChart && !facts.charts.some((chart) => chart.drawn && !chart.failed)) problems.push('shows no drawn chart');
      const repeated = facts.titles.filter((title, i) => title !== '' && facts.titles.indexOf(title) !== i);
      if (repeated.length > 0) problems.push(`the heading "${repeated[0]}" appears twice`);
      for (const link of facts.links) {
        const problem = linkProblem(link, path);
        if (problem) problems.push(problem);
      }
      return { problems: [...new Set(problems)], emptySections: facts.emptySections };
    },
    close: () => page.close(),
  };
}
