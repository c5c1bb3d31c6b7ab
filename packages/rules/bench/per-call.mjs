// Per-call cost of the rules package on a Bash call: splitting a new command line, building the
// call's subject, and matching deny, ask and allow rules of a 500-rule set (the permissions bench's).
// Run after a build: `node bench/per-call.mjs` in this package prints CPU µs per stage.
// `node bench/per-call.mjs <other dist folder>` alternates this build with another one through
// scripts/bench/stable-ratio.mjs (an older
// build copied aside, with a `node_modules` link next to it) round by round and prints both and the
// median of the per-round ratios, so a change is measured against its baseline under the same load.
// Each round runs each build in a child process of its own: two builds in one process share a heap,
// and one's garbage would be collected in (and charged to) the other's timing.
// Lines are made new on every call (a trailing comment with a counter), so the scanner's cache of
// recent lines never serves them: a model's command lines are mostly new.
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median } from '../../../scripts/bench/interleave.mjs';
import { stableRatio } from '../../../scripts/bench/stable-ratio.mjs';
import { rules500 } from './rules-500.mjs';

const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
const perBatch = Number(process.env.BENCH_CALLS ?? 20_000);
const anchors = { cwd: '/work/project', projectDir: '/work/project', homeDir: '/home/me' };
/** Lines a coding agent sends: short, compound, piped, with redirections and quotes. */
const lines = [
  'git status && npm test',
  'cd packages/rules && npx vitest run src/match.test.ts 2>&1 | tail -20',
  'grep -rn "splitCommand" src/ | head -50',
  'ls -la',
  "find . -name '*.ts' -not -path './node_modules/*' | xargs wc -l",
  'timeout 60 pnpm run build > build.log',
];

/** The stages of one build, each a function doing one call's worth of work. */
async function stagesOf(dist) {
  const rules = await import(pathToFileURL(resolve(dist, 'index.js')).href);
  const texts = rules500();
  const sourced = Object.entries(texts).flatMap(([list, all]) =>
    all.map((text) => ({ rule: rules.parseRule(text), list, origin: { source: 'options' } })),
  );
  const set = new rules.RuleSet(sourced, anchors);
  let n = 0;
  const fresh = () => {
    n += 1;
    return `${lines[n % lines.length]} # ${n}`;
  };
  // Subjects prepared ahead (one per line, each split once) for the matching stages.
  const subjects = lines.map((line) => rules.subjectOf('Bash', { command: line }, anchors, 'shell'));
  const next = () => {
    n += 1;
    return subjects[n % subjects.length];
  };
  return [
    ['splitCommand, a new line each call', () => rules.splitCommand(fresh())],
    ['subjectOf, a new line each call', () => rules.subjectOf('Bash', { command: fresh() }, anchors, 'shell')],
    [
      'deny and ask rules (firstMatch ×2, hasSpecificDenyOrAsk)',
      () => {
        const subject = next();
        set.firstMatch('deny', subject);
        set.firstMatch('ask', subject);
        set.hasSpecificDenyOrAsk(subject);
      },
    ],
    ['allow rules (coverage)', () => rules.coverage(next(), [set])],
    [
      'all of it: subject, deny, ask, allow',
      () => {
        const subject = rules.subjectOf('Bash', { command: fresh() }, anchors, 'shell');
        set.firstMatch('deny', subject);
        set.firstMatch('ask', subject);
        set.hasSpecificDenyOrAsk(subject);
        rules.coverage(subject, [set]);
      },
    ],
  ];
}

const cpuNow = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

/** In a child: each stage of one build, warmed up, then timed in three batches; the median batch, in CPU µs per call. */
async function child(dist) {
  const stages = await stagesOf(dist);
  for (const [, fn] of stages) for (let i = 0; i < perBatch / 2; i += 1) fn();
  const result = stages.map(([, fn]) => {
    const batches = [];
    for (let b = 0; b < 3; b += 1) {
      const start = cpuNow();
      for (let i = 0; i < perBatch; i += 1) fn();
      batches.push((cpuNow() - start) / perBatch);
    }
    return median(batches);
  });
  process.stdout.write(JSON.stringify({ names: stages.map(([name]) => name), result }));
}

if (process.argv[2] === '--child') {
  await child(process.argv[3]);
} else {
  const builds = [resolve(import.meta.dirname, '..', 'dist'), ...process.argv.slice(2).map((d) => resolve(d))];
  const self = fileURLToPath(import.meta.url);
  const runs = builds.map(() => []);
  let names = [];
  /** One child run of build `b`: every stage's time kept, the whole-call stage's returned for the ratio. */
  const runOf = async (b) => {
    const out = JSON.parse(execFileSync(process.execPath, [self, '--child', builds[b]], { encoding: 'utf8' }));
    names = out.names;
    runs[b].push(out.result);
    return out.result.at(-1);
  };
  let spread;
  if (builds.length === 1) {
    for (let r = 0; r < rounds; r += 1) await runOf(0);
  } else {
    // The shared alternation (order swapped each round, passes until two agree); each child warms up itself.
    ({ spread } = await stableRatio(
      () => runOf(0),
      () => runOf(1),
      { rounds, warmup: 0, maxRounds: 4 * rounds },
    ));
  }
  console.log(`CPU µs per call, median of ${runs[0].length} runs (a child process per build and run); ${builds.join(' vs ')}`);
  for (const [k, name] of names.entries()) {
    const cells = builds.map((_, b) =>
      median(runs[b].map((run) => run[k]))
        .toFixed(2)
        .padStart(7),
    );
    // stableRatio runs the two builds once per round, so run r of one build pairs with run r of the other.
    const ratio = builds.length > 1 ? `  ${median(runs[0].map((run, r) => run[k] / runs[1][r][k])).toFixed(2)}x` : '';
    console.log(`  ${name.padEnd(58)} ${cells.join(' ')}${ratio}`);
  }
  if (spread !== undefined) console.log(`  (the whole call's ratio: two passes ${spread.toFixed(3)} apart)`);
}
