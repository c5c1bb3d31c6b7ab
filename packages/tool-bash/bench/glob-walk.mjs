#!/usr/bin/env node
// The host policy's glob walk per bash call (`Read(**/.env)`-style hidden paths), on a workspace of
// 5,000 files: every call walking the tree afresh, against the walk that keeps unchanged directories'
// listings (DirectoryListings). CPU time of this process (the walk is CPU- and syscall-bound), in
// alternated rounds; the floor is what the cache cannot avoid: one stat of each directory walked.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { recordRatio } from '../../../scripts/bench/report.mjs';
import { stableRatio } from '../../../scripts/bench/stable-ratio.mjs';
import { DirectoryListings, recentMs } from '../dist/sandbox/directory-listings.js';
import { compileGlob, expandGlobs } from '../dist/sandbox/glob-paths.js';

const files = Number(process.env.BENCH_GLOB_FILES ?? 5_000);
const callsPerRound = Number(process.env.BENCH_GLOB_CALLS ?? 10);
const limits = { maxEntries: 50_000, maxMatches: 2_000 };

/** 25 files a directory, three levels deep (20 × 10 × n), a `.env` in one directory of ten. */
function workspace() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-glob-bench-')));
  const dirs = [];
  for (let made = 0, d = 0; made < files; d += 1) {
    const dir = join(root, `pkg-${d % 20}`, `src-${Math.floor(d / 20) % 10}`, `mod-${Math.floor(d / 200)}`);
    mkdirSync(dir, { recursive: true });
    dirs.push(dir);
    for (let f = 0; f < 25 && made < files; f += 1, made += 1) writeFileSync(join(dir, `file-${f}.ts`), '');
    if (d % 10 === 0) writeFileSync(join(dir, '.env'), '');
  }
  return { root, dirs };
}

const cpuMs = (fn) => async () => {
  const start = process.cpuUsage();
  for (let i = 0; i < callsPerRound; i += 1) fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / callsPerRound;
};

const { root, dirs } = workspace();
try {
  const globs = [compileGlob(join(root, '**', '.env')), compileGlob(join(root, '**', '*.pem'))];
  const walked = [...new Set(dirs.flatMap((dir) => [dir, join(dir, '..'), join(dir, '..', '..')])), root];
  // Listings are kept only for directories quiet for recentMs (see directory-listings.ts).
  await sleep(recentMs + 500);
  const listings = new DirectoryListings();
  const fresh = expandGlobs(globs, limits);
  const kept = expandGlobs(globs, limits, listings);
  if (!fresh.ok || !kept.ok || fresh.paths.length !== kept.paths.length) throw new Error('the two walks disagree');
  console.log(`glob walk: ${files} files, ${walked.length} directories, ${fresh.paths.length} matches, ${listings.size} listings kept`);
  const walk = cpuMs(() => expandGlobs(globs, limits));
  const cached = cpuMs(() => expandGlobs(globs, limits, listings));
  const statEach = cpuMs(() => {
    for (const dir of walked) statSync(dir);
  });
  const result = await stableRatio(walk, cached);
  const floor = await stableRatio(walk, statEach);
  console.log(
    `per call: fresh walk ${result.base.toFixed(2)} ms CPU, kept listings ${result.ours.toFixed(2)} ms CPU; a stat of each directory ${floor.ours.toFixed(2)} ms CPU`,
  );
  recordRatio({
    pkg: 'tool-bash',
    label: `host policy glob walk per call, ${files} files: kept listings vs a fresh walk (CPU)`,
    ratio: result.ratio,
    target: 0.5,
    spread: result.spread,
    rounds: result.rounds,
    floor: { value: floor.ratio, what: 'one stat per directory walked' },
  });
} finally {
  rmSync(root, { recursive: true, force: true });
}
