// Whether a link into the built site lands somewhere: the file must exist and, when the link names
// a fragment, the page must have an element with that id (a heading that lost its anchor fails here).
import { readFileSync } from 'node:fs';
import { siteFile } from './site-server.mjs';

const entities = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** The ids (and a names) a page's HTML declares. */
function anchorsIn(html) {
  const decode = (value) => value.replace(/&(amp|lt|gt|quot|#39);/g, (entity) => entities[entity] ?? entity);
  return new Set([...html.matchAll(/\s(?:id|name)="([^"]*)"/g)].map((match) => decode(match[1] ?? '')));
}

/** A checker for links to `origin` (the server of `site`); `problemOf` is undefined for a good link. */
export function siteLinkChecker(site, origin) {
  const anchorsByFile = new Map();
  const anchorsOf = (file) => {
    if (!anchorsByFile.has(file)) anchorsByFile.set(file, anchorsIn(readFileSync(file, 'utf8')));
    return anchorsByFile.get(file);
  };
  // Every page repeats the site's navigation: each distinct URL is judged once.
  const problemByUrl = new Map();
  const judge = (url) => {
    if (url.origin !== origin) return undefined;
    const file = siteFile(site, url.pathname);
    if (!file) return `links to ${url.pathname}, which the site does not have`;
    const anchor = decodeURIComponent(url.hash.slice(1));
    if (anchor === '' || !file.endsWith('.html') || anchorsOf(file).has(anchor)) return undefined;
    return `links to ${url.pathname}#${anchor}, and that page has no such anchor`;
  };
  return {
    /** What is wrong with a link to `href` (absolute, or relative to the page at URL path `from`). */
    problemOf(href, from) {
      const url = new URL(href, origin + from);
      if (!problemByUrl.has(url.href)) problemByUrl.set(url.href, judge(url));
      return problemByUrl.get(url.href);
    },
  };
}
