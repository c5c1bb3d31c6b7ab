// Packs packages with `pnpm pack`, exactly as `pnpm publish` would (workspace: ranges replaced,
// `files` applied), and checks that a tarball holds only what a consumer needs.
import { execFileSync } from 'node:child_process';
import { coreName } from './workspace.mjs';

/**
 * Packs each package into `destination` and returns `{ name, version, dir, tarball, size, files }`
 * per package, `size` being the packed (gzip) size in bytes.
 */
export function packAll(packages, destination) {
  return packages.map((pkg) => {
    const out = execFileSync('pnpm', ['pack', '--json', '--pack-destination', destination], {
      cwd: pkg.dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const result = JSON.parse(out.slice(out.indexOf('{')));
    return {
      name: result.name,
      version: result.version,
      dir: pkg.dir,
      tarball: result.filename,
      size: result.size,
      files: result.files.map((file) => file.path).sort(),
    };
  });
}

const allowedTopLevel = new Set(['package.json', 'README.md', 'LICENSE']);
const forbidden = [
  [/(^|\/)(__)?fixtures(__)?\//, 'test fixtures'],
  [/\.test(-d)?\.[cm]?[jt]sx?$|\.test(-d)?\.d\.[cm]?ts$/, 'tests'],
  [/\.tsbuildinfo$/, 'TypeScript build-info files'],
  [/\.map$/, 'source maps, whose sources are not shipped (add "!dist/**/*.map" to files)'],
  [/^(?!dist\/).+\/|^(?!dist\/|package\.json$|README\.md$|LICENSE$)/, 'files outside dist that are not README.md or LICENSE'],
];

/** What is wrong with a packed file list: `files` must ship dist, the README and the licence only. */
export function fileListProblems(packed) {
  const problems = [];
  for (const name of allowedTopLevel) if (!packed.files.includes(name)) problems.push(`${name} is missing`);
  if (!packed.files.some((file) => file.startsWith('dist/') && file.endsWith('.d.ts'))) problems.push('dist has no .d.ts files');
  for (const [pattern, what] of forbidden) {
    const found = packed.files.filter((file) => pattern.test(file));
    if (found.length > 0) problems.push(`ships ${found.length} ${what}, e.g. ${found.slice(0, 3).join(', ')}`);
  }
  return problems;
}

/** Formats a byte count as kB (1 kB = 1000 bytes, as npm prints it). */
export function kB(bytes) {
  return `${(bytes / 1000).toFixed(1)} kB`;
}

/**
 * Packed-size budgets in bytes. Core's was 60 kB; it is 68 kB since core logs approvals and late
 * settlements, bounds its event log, documents every event type and checks plugin version ranges
 * (issues 15, 16 and 22), about 11 kB packed in all. It is 84 kB since core resumes a crashed
 * session under a one-writer lock (issue 25), carries content parts for images and files (issue 29)
 * and holds the outcome text and exact-JSON writer five packages had copies of: about 13 kB. It is
 * 96 kB since core owns the session's anchors and resolves every path argument once (invariant 14),
 * carries the sandbox policy the permission rules contribute (invariant 15), hides internal tools,
 * and keeps a resume resumable at every point (issues 35 and 36): about 8 kB. It is 100 kB since core
 * logs where each step begins and ends (`step/start`, `step/end`, their schemas and docs, the resume's
 * handling of a cut step: issue 38) and holds `requireApproval`, which two bindings had copies of
 * (issue 37): about 2 kB, leaving the rest as margin.
 */
export const budgets = new Map([[coreName, 100_000]]);

/** Prints the size table for already packed packages and returns the over-budget lines. */
export function reportSizes(packed) {
  const width = Math.max(...packed.map((p) => p.name.length));
  console.log(`${'package'.padEnd(width)}  ${'packed'.padStart(9)}  files  budget`);
  const over = [];
  for (const p of packed) {
    const budget = budgets.get(p.name);
    const verdict = budget === undefined ? '' : p.size < budget ? `under ${kB(budget)}` : `OVER ${kB(budget)}`;
    console.log(`${p.name.padEnd(width)}  ${kB(p.size).padStart(9)}  ${String(p.files.length).padStart(5)}  ${verdict}`);
    if (budget !== undefined && p.size >= budget) over.push(`${p.name} packs to ${kB(p.size)}, over its ${kB(budget)} budget`);
  }
  return over;
}
