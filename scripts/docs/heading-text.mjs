// typedoc plugin: a heading that is (or holds) a code span, like the catalog's "### `bash`",
// gets its text in "On This Page" and an anchor made from that text (#bash, as on GitHub).
// typedoc builds both from the heading's plain text tokens and skips code spans, so every such
// heading showed as an empty link to #_, #_-1, ... This rule rewrites a heading's code span as
// <code>, the span's text, </code>: the page shows the same code, typedoc now sees the text.
import { extendMarkdown } from './markdown-loader.mjs';

/** markdown-it core rule: code spans inside headings become text between <code> tags. */
function codeSpansAsText(state) {
  state.tokens.forEach((token, i) => {
    const inline = state.tokens[i + 1];
    if (token.type !== 'heading_open' || !inline?.children) return;
    inline.children = inline.children.flatMap((child) => {
      if (child.type !== 'code_inline') return [child];
      const open = new state.Token('html_inline', '', 0);
      open.content = '<code>';
      const text = new state.Token('text', '', 0);
      text.content = child.content;
      const close = new state.Token('html_inline', '', 0);
      close.content = '</code>';
      return [open, text, close];
    });
  });
}

/** @param {import('typedoc').Application} app */
export function load(app) {
  // Last in the chain, so typographic replacements never touch the code's text.
  extendMarkdown(app, (parser) => parser.core.ruler.push('dsh-heading-code-text', codeSpansAsText));
}
