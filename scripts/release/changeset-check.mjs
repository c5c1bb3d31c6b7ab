#!/usr/bin/env node
// `pnpm run changeset:check`: fails when a published package changed without a changeset.
//
// What "changed" is measured against (the base):
//   - DSH_CHANGESET_BASE, when set;
//   - on a pull request in GitHub Actions, origin/$GITHUB_BASE_REF (checkout with fetch-depth: 0);
//   - on a branch ahead of the changesets base branch (main or origin/main), that branch;
//   - on the base branch itself (a clean clone of main), the last release: the newest
//     `@deepseek-ai/*@*` tag `changeset publish` made, or, before the first release, the root
//     commit. So on main it checks that everything unreleased has a pending changeset.
// A package whose version differs from the base's (or, for a package newer than the base, from its
// first commit's) is being released: the "version packages" pull request and its merge commit,
// which delete the changesets they apply, need none.
// Without git history (no repository, or a shallow clone without the base) the check is skipped
// with a warning, except in CI (CI or GITHUB_ACTIONS set), where it fails.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { publishedPackages, workspaceRoot } from './workspace.mjs';

const inCi = Boolean(process.env.CI || process.env.GITHUB_ACTIONS);

function git(...args) {
  const result = spawnSync('git', args, { cwd: workspaceRoot, encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

function giveUp(message) {
  if (inCi) {
    console.error(`changeset check: ${message}`);
    process.exit(1);
  }
  console.warn(`changeset check SKIPPED: ${message}`);
  process.exit(0);
}

/** The ref to compare against and why it was chosen. */
function resolveBase() {
  if (process.env.DSH_CHANGESET_BASE) return { ref: process.env.DSH_CHANGESET_BASE, why: 'DSH_CHANGESET_BASE' };
  if (process.env.GITHUB_BASE_REF) return { ref: `origin/${process.env.GITHUB_BASE_REF}`, why: 'the pull request base' };
  const config = JSON.parse(readFileSync(join(workspaceRoot, '.changeset', 'config.json'), 'utf8'));
  const head = git('rev-parse', 'HEAD');
  for (const ref of [config.baseBranch, `origin/${config.baseBranch}`]) {
    const mergeBase = git('rev-parse', '--verify', '--quiet', `${ref}^{commit}`) && git('merge-base', ref, 'HEAD');
    if (mergeBase && mergeBase !== head) return { ref, why: 'the base branch: HEAD is ahead of it' };
  }
  const tag = git('describe', '--tags', '--abbrev=0', '--match', '@deepseek-ai/*@*', 'HEAD');
  if (tag) return { ref: tag, why: 'the last release tag' };
  if (git('rev-parse', '--is-shallow-repository') === 'true') return undefined;
  const roots = git('rev-list', '--max-parents=0', 'HEAD')?.split('\n');
  return roots?.length ? { ref: roots[roots.length - 1], why: 'the root commit: nothing was released yet' } : undefined;
}

/** The version in a folder's package.json at a commit, if it existed there. */
function versionAt(commit, folder) {
  const text = commit ? git('show', `${commit}:${folder}/package.json`) : undefined;
  return text ? JSON.parse(text).version : undefined;
}

if (git('rev-parse', '--is-inside-work-tree') !== 'true') giveUp('not a git checkout, so there is nothing to compare with');
const base = resolveBase();
if (!base) giveUp('a shallow clone without release tags: fetch the whole history (actions/checkout fetch-depth: 0)');
const mergeBase = git('merge-base', base.ref, 'HEAD');
if (!mergeBase) giveUp(`cannot find where HEAD diverged from ${base.ref}: is it fetched (fetch-depth: 0)?`);
console.log(`changeset check: comparing with ${base.ref} (${base.why}), merge base ${mergeBase.slice(0, 12)}`);

// The same diff changesets makes: the merge base against the working tree.
const changedFiles = git('diff', '--name-only', '--no-relative', mergeBase)?.split('\n').filter(Boolean) ?? [];
const needing = [];
for (const pkg of publishedPackages()) {
  const folder = relative(workspaceRoot, pkg.dir);
  if (!changedFiles.some((file) => file.startsWith(`${folder}/`))) continue;
  const baseVersion =
    versionAt(mergeBase, folder) ?? versionAt(git('log', '--diff-filter=A', '--format=%H', '-1', '--', `${folder}/package.json`), folder);
  if (baseVersion !== undefined && baseVersion !== pkg.manifest.version) {
    console.log(`  ${pkg.manifest.name}: changed and released here (${baseVersion} -> ${pkg.manifest.version})`);
  } else {
    needing.push(pkg.manifest.name);
  }
}
if (needing.length === 0) {
  console.log('changeset check: no published package changed without a version bump; `changeset status` not needed.');
  process.exit(0);
}

const scratch = mkdtempSync(join(tmpdir(), 'dsh-changeset-'));
try {
  const planFile = join(scratch, 'plan.json');
  // Fails by itself (with its own message) when packages changed and not one changeset was added.
  const status = spawnSync('pnpm', ['changeset', 'status', `--since=${base.ref}`, '--verbose', `--output=${planFile}`], {
    cwd: workspaceRoot,
    stdio: 'inherit',
  });
  if (status.status !== 0) {
    console.error(
      `changeset check FAILED: \`changeset status\` failed (above); these packages changed since ${base.ref}: ${needing.join(', ')}.`,
    );
    rmSync(scratch, { recursive: true, force: true });
    process.exit(1);
  }
  const plan = JSON.parse(readFileSync(planFile, 'utf8'));
  const named = new Set(plan.changesets.flatMap((changeset) => changeset.releases.map((release) => release.name)));
  const empty = plan.changesets.filter((changeset) => changeset.releases.length === 0);
  const uncovered = needing.filter((name) => !named.has(name));
  for (const name of needing) console.log(`  ${name}: ${named.has(name) ? 'has a changeset' : 'NO changeset'}`);
  if (uncovered.length > 0 && empty.length === 0) fail(uncovered);
  if (uncovered.length > 0) console.log(`changeset check: ${uncovered.join(', ')} covered by an empty changeset (no release needed).`);
  console.log('changeset check: every changed published package has a changeset.');
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

function fail(names) {
  console.error(
    `changeset check FAILED: changed since ${base.ref} without a changeset: ${names.join(', ')}.\n` +
      'Run `pnpm changeset` and name them (or `pnpm changeset --empty` when the change needs no release).',
  );
  rmSync(scratch, { recursive: true, force: true });
  process.exit(1);
}
