import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';

/** What an HTML page became. */
export interface ConvertedPage {
  readonly title?: string;
  readonly content: string;
  /** `article` when Readability found the main content; `body` when it did not and the whole body (less its chrome) was used. */
  readonly extraction: 'article' | 'body';
}

/** Elements that are never text a reader sees. */
const invisible = 'script, style, noscript, template, iframe, object, embed, svg, canvas';

type LinkedomDocument = ReturnType<typeof parseHTML>['document'];
type LinkedomElement = ReturnType<LinkedomDocument['createElement']>;

function newTurndown(): TurndownService {
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_' });
  service.remove(['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed']);
  return service;
}

let turndown: TurndownService | undefined;

/** Relative links and images made absolute against the page (or its `<base href>`), so they still work out of context. */
function absolutize(document: LinkedomDocument, pageUrl: string): void {
  let base = pageUrl;
  const baseHref = document.querySelector('base[href]')?.getAttribute('href');
  if (baseHref) {
    try {
      base = new URL(baseHref, pageUrl).href;
    } catch {
      // A broken <base>: keep the page's URL.
    }
  }
  for (const [selector, attribute] of [
    ['a[href]', 'href'],
    ['img[src]', 'src'],
  ] as const) {
    for (const element of document.querySelectorAll(selector) as Iterable<LinkedomElement>) {
      const value = element.getAttribute(attribute);
      if (value === null || value.startsWith('#')) continue;
      try {
        element.setAttribute(attribute, new URL(value, base).href);
      } catch {
        // Not a URL at all; leave it.
      }
    }
  }
}

/** Page chrome outside the article: the first things a reader skips. */
const outerChrome = 'nav, aside, header, footer, form, dialog';

function parsed(html: string, pageUrl: string): LinkedomDocument {
  // linkedom makes a fragment's first element the document element; give it a body like a browser would.
  const source = /<body[\s>]/i.test(html) ? html : `<!doctype html><html><body>${html.replace(/<\/?html\b[^>]*>/gi, '')}</body></html>`;
  const { document } = parseHTML(source);
  for (const element of document.querySelectorAll(invisible) as Iterable<LinkedomElement>) element.remove();
  for (const element of document.querySelectorAll(outerChrome) as Iterable<LinkedomElement>) {
    if (element.parentElement?.closest('article, main, [role="main"]') == null) element.remove();
  }
  absolutize(document, pageUrl);
  return document;
}

function mainContent(html: string, pageUrl: string): { title: string | undefined; node: LinkedomElement; extraction: 'article' | 'body' } {
  const document = parsed(html, pageUrl);
  const fallbackTitle = document.title?.trim() || undefined;
  const article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0], {
    serializer: (node) => node,
  }).parse();
  const node = article?.content as LinkedomElement | null | undefined;
  if (article !== null && node !== null && node !== undefined && (article.textContent ?? '').trim() !== '') {
    return { title: article.title?.trim() || fallbackTitle, node, extraction: 'article' };
  }
  // Readability edited the document it read; the fallback starts again from the source (rare, and cheaper than a clone every time).
  const fresh = parsed(html, pageUrl);
  return { title: fallbackTitle, node: (fresh.body ?? fresh.documentElement) as LinkedomElement, extraction: 'body' };
}

const blocks = 'p, div, section, article, li, tr, br, hr, pre, blockquote, h1, h2, h3, h4, h5, h6, dt, dd, table, ul, ol';

/** Plain text of a node, with a line break after each block so paragraphs stay apart. */
function textOf(node: LinkedomElement): string {
  for (const element of node.querySelectorAll(blocks) as Iterable<LinkedomElement>) {
    element.after(node.ownerDocument.createTextNode('\n'));
  }
  return tidyText(node.textContent ?? '');
}

/** Collapses runs of spaces and blank lines, the way text reads. */
function tidyText(text: string): string {
  return text
    .replace(/[ \t\f\v\u00a0]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * Turns an HTML page into Markdown (or plain text): Mozilla's Readability
 * finds the main content on a linkedom document, and Turndown writes it as
 * Markdown. When Readability finds no article, the body less its scripts,
 * navigation, header, footer and forms is used.
 */
export function convertHtml(html: string, pageUrl: string, format: 'markdown' | 'text'): ConvertedPage {
  const { title, node, extraction } = mainContent(html, pageUrl);
  if (format === 'text') {
    const content = textOf(node);
    return title === undefined ? { content, extraction } : { title, content, extraction };
  }
  turndown ??= newTurndown();
  const content = turndown.turndown(node as unknown as TurndownService.Node).trim();
  return title === undefined ? { content, extraction } : { title, content, extraction };
}
