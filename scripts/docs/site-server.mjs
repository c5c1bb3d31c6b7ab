// Serves the built API site (docs/api) on 127.0.0.1 the way a static host would, so the browser
// check loads it over HTTP with real requests that can fail.
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';

const types = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.png': 'image/png',
};

/** The file under `site` that a URL path names (a folder means its index.html), or undefined. */
export function siteFile(site, pathname) {
  const path = normalize(join(site, decodeURIComponent(pathname)));
  if (!path.startsWith(site)) return undefined;
  const file = pathname.endsWith('/') ? join(path, 'index.html') : path;
  return existsSync(file) && statSync(file).isFile() ? file : undefined;
}

/** Starts a server for `site` on a free port of 127.0.0.1; resolves to its origin and a close function. */
export async function serveSite(site) {
  const server = createServer((request, response) => {
    const file = siteFile(site, new URL(request.url ?? '/', 'http://x').pathname);
    if (!file) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(response);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
