// typedoc plugin: ```mermaid blocks are drawn as charts in the reader's browser, with no network.
// The block becomes <pre class="mermaid">; the pages that have one load mermaid's self-contained
// browser bundle (@mermaid-js/tiny, copied into the site's assets) and mermaid-start.js, which draws.
// Drawing in the browser (rather than SVG made at build time) keeps `pnpm run docs` free of a
// browser, and the chart follows the site's light or dark theme.
import { copyFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, posix } from 'node:path';
import { Renderer } from 'typedoc';
import { extendMarkdown } from './markdown-loader.mjs';

const bundle = createRequire(import.meta.url).resolve('@mermaid-js/tiny');
const start = new URL('./mermaid-start.js', import.meta.url);
const chartTag = '<pre class="mermaid">';

/** @param {import('typedoc').Application} app */
export function load(app) {
  extendMarkdown(app, (parser) => {
    const fence = parser.renderer.rules.fence;
    parser.renderer.rules.fence = (tokens, idx, options, env, self) => {
      const token = tokens[idx];
      if (token?.info.trim() !== 'mermaid') return fence(tokens, idx, options, env, self);
      return `${chartTag}${parser.utils.escapeHtml(token.content)}</pre>\n`;
    };
  });
  app.renderer.on(Renderer.EVENT_END_PAGE, (page) => {
    if (!page.contents?.includes(chartTag)) return;
    const asset = (name) => posix.relative(posix.dirname(page.url), `assets/${name}`);
    const scripts = `<script defer src="${asset('mermaid.tiny.js')}"></script><script defer src="${asset('mermaid-start.js')}"></script>`;
    page.contents = page.contents.replace('</body>', `${scripts}</body>`);
  });
  app.renderer.on(Renderer.EVENT_END, (event) => {
    copyFileSync(bundle, join(event.outputDirectory, 'assets', 'mermaid.tiny.js'));
    copyFileSync(start, join(event.outputDirectory, 'assets', 'mermaid-start.js'));
  });
}
