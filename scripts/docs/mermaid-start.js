// Runs in the docs site's pages that have charts, after assets/mermaid.tiny.js: draws every
// <pre class="mermaid"> in the site's theme, and records the outcome in <html data-charts>
// ("drawing", then "drawn" or "failed: why") so the docs check knows when to look.
(() => {
  const root = document.documentElement;
  root.dataset.charts = 'drawing';
  if (typeof mermaid === 'undefined') {
    root.dataset.charts = 'failed: assets/mermaid.tiny.js did not load';
    return;
  }
  // typedoc keeps the reader's choice in data-theme: "light", "dark" or "os".
  const theme = root.dataset.theme;
  const dark = theme === 'dark' || (theme !== 'light' && matchMedia('(prefers-color-scheme: dark)').matches);
  mermaid.initialize({ startOnLoad: false, theme: dark ? 'dark' : 'default' });
  mermaid.run({ querySelector: 'pre.mermaid' }).then(
    () => {
      root.dataset.charts = 'drawn';
    },
    (error) => {
      root.dataset.charts = `failed: ${error instanceof Error ? error.message : String(error)}`;
      console.error(error);
    },
  );
})();
