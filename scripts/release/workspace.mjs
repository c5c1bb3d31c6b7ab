// The workspace's packages as the release tooling sees them: every folder under packages/ with
// a package.json; the ones without "private": true are the ones we publish.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file lives in scripts/release/). */
export const workspaceRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The npm name of the core package every plugin peer-depends on. */
export const coreName = '@deepseek-ai/dsh-core';

/** Reads one package.json. */
export function readManifest(dir) {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
}

/** Every package under packages/, sorted by folder: `{ dir, folder, manifest }`. */
export function workspacePackages() {
  const base = join(workspaceRoot, 'packages');
  return readdirSync(base, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(base, entry.name, 'package.json')))
    .map((entry) => ({ dir: join(base, entry.name), folder: entry.name, manifest: readManifest(join(base, entry.name)) }))
    .sort((a, b) => a.folder.localeCompare(b.folder));
}

/** The packages that `changeset publish` would publish. */
export function publishedPackages() {
  return workspacePackages().filter((pkg) => pkg.manifest.private !== true);
}
