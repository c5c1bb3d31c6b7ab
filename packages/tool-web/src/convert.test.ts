import { describe, expect, it } from 'vitest';
import { convertHtml } from './convert.js';
import { boilerplatePage } from './fixtures/pages.js';

describe('convertHtml', () => {
  it('keeps the article and drops the chrome', () => {
    const page = convertHtml(boilerplatePage, 'https://coast.example/2026/tides', 'markdown');
    expect(page.extraction).toBe('article');
    expect(page.content).toContain('## Spring and neap tides');
    expect(page.content).toContain('[what chart datum means](https://coast.example/guides/datum)');
    expect(page.content).not.toContain('Accept all');
  });

  it('falls back to the body, less scripts, navigation and footer, when there is no article to find', () => {
    const html =
      '<html><head><title>Status</title></head><body><nav>Menu Login</nav><div>OK</div><footer>foot</footer><script>evil()</script></body></html>';
    const page = convertHtml(html, 'https://status.example/', 'markdown');
    expect(page.title).toBe('Status');
    expect(page.content).toContain('OK');
    for (const gone of ['Menu', 'foot', 'evil']) expect(page.content).not.toContain(gone);
  });

  it('resolves links against <base href>', () => {
    const html = `<html><head><base href="https://cdn.example/docs/"></head><body><article><p>${'Long enough text for an article. '.repeat(20)}<a href="page.html">next</a> <img src="i.png" alt="pic"></p></article></body></html>`;
    const page = convertHtml(html, 'https://site.example/x', 'markdown');
    expect(page.content).toContain('[next](https://cdn.example/docs/page.html)');
    expect(page.content).toContain('![pic](https://cdn.example/docs/i.png)');
  });

  it('survives broken markup', () => {
    const page = convertHtml('<p>unclosed <b>bold <i>both</p></div></span><<>>&bogus;', 'https://x.example/', 'text');
    expect(page.content).toContain('unclosed bold both');
  });
});
