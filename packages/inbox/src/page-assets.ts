import { readFileSync } from 'node:fs';

/** One file of the page, read once, with its type. */
export interface Asset {
  readonly body: Buffer;
  readonly type: string;
}

const types: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

/** The page's three files (`src/page/`, copied to `dist/page/` by the build), by the path they are served at. */
export function loadAssets(): ReadonlyMap<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const [path, file] of [
    ['/', 'index.html'],
    ['/app.js', 'app.js'],
    ['/app.css', 'app.css'],
  ] as const) {
    const body = readFileSync(new URL(`./page/${file}`, import.meta.url));
    assets.set(path, { body, type: types[file.split('.').pop() ?? 'html'] ?? 'application/octet-stream' });
  }
  return assets;
}
