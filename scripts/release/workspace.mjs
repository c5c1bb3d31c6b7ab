// The workspace's packages as the release tooling sees them: every folder under packages/ with
// a package.json; the ones without "private": true are the ones we publish.
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
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

const notCopied = new Set(['node_modules', 'dist', '.turbo', 'coverage', '.git', 'api', '.bench-results']);

/** Copies the workspace's sources as they are (committed or not) to `dest`, without anything installed or built. */
export function copyWorkspaceSources(dest) {
  cpSync(workspaceRoot, dest, {
    recursive: true,
    filter: (source) =>
      !relative(workspaceRoot, source)
        .split('/')
        .some((part) => notCopied.has(part) || part.endsWith('.tsbuildinfo')),
  });
}
