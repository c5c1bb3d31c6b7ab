// typedoc takes one `markdownItLoader` function; each local plugin adds its rules to the parser
// through this, after the configuration is read, keeping any loader set before it.
import { Application } from 'typedoc';

/** Calls `extend(parser)` on the markdown-it parser typedoc renders with. */
export function extendMarkdown(app, extend) {
  app.on(Application.EVENT_BOOTSTRAP_END, () => {
    const previous = app.options.getValue('markdownItLoader');
    app.options.setValue('markdownItLoader', (parser) => {
      previous(parser);
      extend(parser);
    });
  });
}
