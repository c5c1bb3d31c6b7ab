#!/usr/bin/env node
// `pnpm run docs:links`, after `pnpm run docs`: every published package has a page in the typedoc
// site (docs/api, published at siteUrl by .github/workflows/docs.yml) and its README links to it,
// and no README link into the site points at a page typedoc did not generate.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { publishedPackages, workspaceRoot } from './workspace.mjs';

/** Where GitHub Pages serves docs/api. */
export const siteUrl = 'https://deepseek-ai.github.io/dsh/';
const site = join(workspaceRoot, 'docs', 'api');

if (!existsSync(join(site, 'index.html'))) {
  console.error('docs/api is missing: run `pnpm run docs` first.');
  process.exit(1);
}
const problems = [];
for (const { dir, manifest } of publishedPackages()) {
  // typedoc's page for a package in the merged site: "@scope/name" -> modules/_scope_name.html
  const page = `modules/${manifest.name.replace(/[@/]/g, '_')}.html`;
  if (!existsSync(join(site, page))) problems.push(`${manifest.name}: typedoc generated no ${page}`);
  const readme = join(dir, 'README.md');
  if (!existsSync(readme)) {
    problems.push(`${manifest.name}: no README.md`);
    continue;
  }
  const text = readFileSync(readme, 'utf8');
  const links = [...text.matchAll(/https:\/\/deepseek-ai\.github\.io\/dsh\/([^\s)>"'#]*)/g)].map((m) => m[1] ?? '');
  if (!links.includes(page)) problems.push(`${manifest.name}: README.md does not link to its API page ${siteUrl}${page}`);
  for (const link of links) {
    if (!existsSync(join(site, link === '' ? 'index.html' : link)))
      problems.push(`${manifest.name}: README.md links to ${siteUrl}${link}, which typedoc did not generate`);
  }
}
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(`docs links: ${publishedPackages().length} packages each have an API page their README links to.`);
