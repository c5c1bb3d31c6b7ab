#!/usr/bin/env node
// `pnpm run release:rehearse`: a release, rehearsed on a scratch copy of the checkout, so the first
// real one cannot ship wrong metadata. In the copy it
//   1. applies the pending changesets with `changeset version` (or, when none is pending, a
//      synthetic patch changeset for every published package, so every version moves);
//   2. checks each changeset's summary is written for users (see `summaryProblems`);
//   3. checks every workspace peer range still admits the bumped version of its peer;
//   4. builds, then runs the package checks and the consumer smoke test (check-packages.mjs),
//      whose every-plugin.ts fails when a plugin reports a version other than its package.json's.
// The checkout itself is never changed. `--keep` leaves the copy on disk.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { summaryProblems } from './changeset-summary.mjs';
import { copyWorkspaceSources } from './workspace.mjs';

const require = createRequire(import.meta.url);
const semver = createRequire(require.resolve('@changesets/cli/package.json'))('semver');

/** The pending changesets of a checkout: `{ file, summary }` each. */
function pendingChangesets(dir) {
  const folder = join(dir, '.changeset');
  return readdirSync(folder)
    .filter((file) => file.endsWith('.md') && file !== 'README.md')
    .map((file) => {
      const text = readFileSync(join(folder, file), 'utf8');
      const end = text.indexOf('\n---', 3);
      return { file, summary: end < 0 ? '' : text.slice(end + 4) };
    });
}

function packagesOf(dir) {
  const base = join(dir, 'packages');
  return readdirSync(base, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      try {
        return [{ dir: join(base, entry.name), manifest: JSON.parse(readFileSync(join(base, entry.name, 'package.json'), 'utf8')) }];
      } catch {
        return [];
      }
    });
}

function run(command, args, cwd) {
  console.log(`\n$ ${command} ${args.join(' ')}`);
  execFileSync(command, args, { cwd, stdio: 'inherit', env: { ...process.env, FORCE_COLOR: '0' } });
}

function main() {
  const keep = process.argv.includes('--keep');
  const copy = mkdtempSync(join(tmpdir(), 'dsh-release-rehearsal-'));
  const failures = [];
  try {
    copyWorkspaceSources(copy);
    console.log(`release rehearsal in ${copy}`);
    run('pnpm', ['install', '--frozen-lockfile', '--offline', '--reporter=silent'], copy);

    const before = new Map(packagesOf(copy).map((pkg) => [pkg.manifest.name, pkg.manifest.version]));
    const published = packagesOf(copy).filter((pkg) => pkg.manifest.private !== true);
    let pending = pendingChangesets(copy);
    if (pending.length === 0) {
      const front = published.map((pkg) => `"${pkg.manifest.name}": patch`).join('\n');
      const summary = 'Rehearsal only: every package is released once so the release tooling is exercised end to end.';
      writeFileSync(join(copy, '.changeset', 'rehearsal.md'), `---\n${front}\n---\n\n${summary}\n`);
      pending = pendingChangesets(copy);
      console.log('no pending changesets: rehearsing with a synthetic patch for every published package');
    }
    for (const { file, summary } of pending) {
      for (const problem of summaryProblems(summary)) failures.push(`.changeset/${file}: ${problem}`);
    }

    run('pnpm', ['exec', 'changeset', 'version'], copy);

    const after = packagesOf(copy);
    const versions = new Map(after.map((pkg) => [pkg.manifest.name, pkg.manifest.version]));
    for (const pkg of after.filter((p) => p.manifest.private !== true)) {
      const { name, version } = pkg.manifest;
      console.log(`  ${name}: ${before.get(name)} -> ${version}`);
      for (const [peer, range] of Object.entries(pkg.manifest.peerDependencies ?? {})) {
        const bumped = versions.get(peer);
        if (bumped !== undefined && !semver.satisfies(bumped, range)) {
          failures.push(`${name}: peer range "${range}" does not admit the released ${peer}@${bumped}`);
        }
      }
    }
    if (![...versions].some(([name, version]) => before.get(name) !== version)) failures.push('changeset version moved no version');
    if (failures.length > 0) throw new Error(failures.join('\n'));

    run('pnpm', ['run', 'build'], copy);
    // Packs, lints and smoke-tests the bumped packages; every-plugin.ts compares reported versions.
    run('node', ['scripts/release/check-packages.mjs'], copy);
    console.log('\nrelease rehearsal: versions applied, changelogs written, packages checked against the bumped versions');
  } catch (error) {
    console.error(`\nrelease rehearsal FAILED:\n${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  } finally {
    if (keep) console.log(`copy kept at ${copy}`);
    else rmSync(copy, { recursive: true, force: true });
  }
}

main();
