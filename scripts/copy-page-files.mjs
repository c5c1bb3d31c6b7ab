#!/usr/bin/env node
// A package's web page files (`src/page/`: HTML, CSS and the browser's JavaScript, which tsc does
// not compile) are copied to `dist/page/`, so the published package serves them from dist, the only
// folder it ships. Runs after `tsc -b`, as part of `pnpm run build`.
import { cpSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../packages/', import.meta.url).pathname;
let copied = 0;
for (const name of readdirSync(root)) {
  const from = join(root, name, 'src', 'page');
  if (!existsSync(from)) continue;
  const to = join(root, name, 'dist', 'page');
  rmSync(to, { recursive: true, force: true });
  cpSync(from, to, { recursive: true });
  copied += 1;
}
if (process.env.DSH_STRIP_VERBOSE) console.log(`copy-page-files: the page files of ${copied} packages copied to dist`);
