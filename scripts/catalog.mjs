#!/usr/bin/env node
// Generates docs/catalog/ (tool JSON Schemas and event schemas) from the code of every
// plugin, or with --check fails when the committed catalog differs from what the code says.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { catalogMarkdown, catalogOf, createHost } from '@deepseek-ai/dsh-core';
import { catalogPlugins } from './catalog-plugins.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'docs', 'catalog');
const check = process.argv.includes('--check');

const scratch = mkdtempSync(join(tmpdir(), 'dsh-catalog-'));
try {
  const host = createHost({ session: 'catalog' });
  for (const plugin of await catalogPlugins(scratch)) await host.use(plugin);
  const catalog = catalogOf(host);
  const files = {
    'catalog.json': `${JSON.stringify(catalog, null, 2)}\n`,
    'catalog.md': catalogMarkdown(catalog),
  };
  if (check) {
    const stale = Object.entries(files).filter(
      ([name, text]) => !existsSync(join(out, name)) || readFileSync(join(out, name), 'utf8') !== text,
    );
    if (stale.length > 0) {
      console.error(`docs/catalog is stale (${stale.map(([n]) => n).join(', ')}): run \`pnpm catalog\` and commit the result.`);
      process.exit(1);
    }
    console.log('docs/catalog is up to date.');
  } else {
    mkdirSync(out, { recursive: true });
    for (const [name, text] of Object.entries(files)) writeFileSync(join(out, name), text);
    console.log(
      `wrote ${Object.keys(files)
        .map((n) => `docs/catalog/${n}`)
        .join(', ')}`,
    );
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
