// Per-call cost of deciding against 500 rules, against the bare pipeline measured in the same run.
// Run after a build: `pnpm bench` (or `node bench/run.mjs` in this package). Bare and with permissions
// alternate round by round until two passes agree; the rows go into `pnpm bench`'s summary table.
// Time is this process's CPU time (collector threads included), not wall time: on a shared machine
// other processes' work does not land in it.
//
// The Read row is a file tool as tool-fs writes them (core resolves its path once, before any tap, in the
// bare pipeline too); a last row is the same tool without `resolvePaths`, whose path permissions resolves.
// Each row is followed by where its time goes (each stage timed alone, in the same run) and by the
// floor of the design: a plugin with the same hooks that does only what permissions cannot skip on a
// call (stat the grants file, so a grant another process wrote counts from the next call; resolve a
// file path through symlinks; log the decision), measured against the bare pipeline like the row.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createHost, definePlugin, defineTool, z } from '@deepseek-ai/dsh-core';
import { realOrSelf } from '@deepseek-ai/dsh-rules';
import { recordValue } from '../../../scripts/bench/report.mjs';
import { stableRatio } from '../../../scripts/bench/stable-ratio.mjs';
import { rules500 } from '../../rules/bench/rules-500.mjs';
import { coverage, decide, GrantStore, permissions, RuleSet, subjectOf } from '../dist/index.js';

const calls = Number(process.env.BENCH_CALLS ?? 20_000);
const dir = mkdtempSync(join(tmpdir(), 'dsh-perm-bench-'));
mkdirSync(join(dir, 'src'));
writeFileSync(join(dir, 'src', 'a.ts'), 'export {};\n');
const anchors = { cwd: dir, projectDir: dir, homeDir: dir };
const grantsFile = join(dir, '.dsh', 'permission-grants.json');

const toShell = (a) => ({ command: a.command });
const toRead = (a) => ({ file_path: a.path });
const shell = definePlugin({
  name: 'bench-tools',
  version: '0',
  register(host) {
    host.tools.register(
      defineTool({
        name: 'shell',
        description: 'does nothing',
        input: z.object({ command: z.string() }),
        execute: () => 'ok',
        external: { claude: { name: 'Bash', toExternal: toShell, fromExternal: (i) => ({ command: i.command }) } },
      }),
    );
    // A file tool as tool-fs writes them: core resolves its path (through symlinks) once, before any tap.
    host.tools.register(
      defineTool({
        name: 'read_file',
        description: 'does nothing',
        input: z.object({ path: z.string() }),
        execute: () => 'ok',
        external: { claude: { name: 'Read', toExternal: toRead, fromExternal: (i) => ({ path: i.file_path }) } },
        resolvePaths(args, where) {
          const real = realOrSelf(resolve(where.cwd, args.path));
          return real === args.path ? args : { ...args, path: real };
        },
      }),
    );
    // The same without `resolvePaths`: the policies resolve its path themselves.
    host.tools.register(
      defineTool({
        name: 'read_unresolved',
        description: 'does nothing',
        input: z.object({ path: z.string() }),
        execute: () => 'ok',
        external: { claude: { name: 'Read', toExternal: toRead, fromExternal: (i) => ({ path: i.file_path }) } },
      }),
    );
  },
});

/** A decision event's shape, as permissions defines it, for the floor plugin's own event type. */
const decisionSchema = z.object({
  tool: z.string(),
  decision: z.enum(['allow', 'deny', 'ask']),
  mode: z.string(),
  reason: z.string(),
  by: z.array(z.looseObject({ kind: z.enum(['rule', 'grant', 'mode', 'tap']) })),
  uncovered: z.array(z.string()).optional(),
});

/**
 * The floor: permissions' hooks (a pre-execute tap that decides, a result tap, a guard reading what the tap
 * kept) doing only the work no design of it can skip: one stat of the grants file, the path through
 * symlinks for a file tool that does not resolve its own (core resolved it for one that does), and (when `events` holds the decision to log) the decision event.
 */
function floorPlugin(events) {
  return definePlugin({
    name: 'floor',
    version: '0',
    register(h) {
      const kept = new Map();
      if (events !== undefined) h.events.define('floor/decision', decisionSchema);
      h.hooks.preExecute.tap({ name: 'floor', stage: 100 }, (state, info) => {
        statSync(grantsFile, { throwIfNoEntry: false });
        // A tool that resolves its own paths has had them resolved by core (in the bare pipeline too).
        if (typeof state.args.path === 'string' && info.tool.resolvePaths === undefined) realOrSelf(state.args.path);
        kept.set(`${info.call.token}\u0000${info.call.id}`, state.args);
        const data = events?.get(info.tool.name);
        if (data !== undefined) void h.events.emit('floor/decision', data, info.call).catch(() => undefined);
        return { decision: 'allow', reason: 'floor' };
      });
      h.hooks.result.tap('floor', (_outcome, info) => {
        kept.delete(`${info.call.token}\u0000${info.call.id}`);
      });
      h.guards.register({
        id: 'floor',
        check: (input) => (kept.get(`${input.call.token}\u0000${input.call.id}`) === input.args ? 'abstain' : 'abstain'),
      });
    },
  });
}

async function hostOf(label, plugins) {
  const host = createHost({ defaultDecision: 'allow', approval: () => 'rejected' });
  for (const p of plugins) await host.use(p);
  return { label, host };
}

const cpuNow = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

let id = 0;
/** CPU µs per one-call step over `n` steps of `args` on `h`. */
async function perCall(h, args, n) {
  const start = cpuNow();
  for (let i = 0; i < n; i += 1) {
    id += 1;
    const { results } = await h.host.runStep({ calls: [{ id: `c${id}`, name: args.name, args: args.args }] });
    if (results[0].outcome.status !== 'ok') throw new Error(`${h.label}: ${JSON.stringify(results[0].outcome)}`);
  }
  return (cpuNow() - start) / n;
}

/** The bare pipeline and the same with `other`, in alternated rounds until two passes agree. */
async function measure(bare, other, args, maxRounds = 72) {
  await perCall(bare, args, Math.min(2000, calls));
  await perCall(other, args, Math.min(2000, calls));
  const perRound = Math.max(200, Math.floor(calls / 20));
  return stableRatio(
    () => perCall(bare, args, perRound),
    () => perCall(other, args, perRound),
    { rounds: 9, maxRounds },
  );
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** CPU µs per run of each stage, timed alone: stages in turn within each round, the median round kept. */
function stageTimes(stages, n = Math.max(2000, Math.floor(calls / 4)), rounds = 9) {
  const times = stages.map(() => []);
  for (const [, fn] of stages) for (let i = 0; i < 500; i += 1) fn();
  for (let r = 0; r < rounds; r += 1) {
    for (const [k, [, fn]] of stages.entries()) {
      const start = cpuNow();
      for (let i = 0; i < n; i += 1) fn();
      times[k].push((cpuNow() - start) / n);
    }
  }
  return times.map(median);
}

const set = rules500();
const bashCall = { name: 'shell', args: { command: 'git status && npm test' } };
const readCall = { name: 'read_file', args: { path: join(dir, 'src', 'a.ts') } };
const unresolvedCall = { name: 'read_unresolved', args: { path: join(dir, 'src', 'a.ts') } };
const options = { projectDir: dir, homeDir: dir, settingsFiles: false, rules: set };

const bare = await hostOf('bare', [shell]);
const withPerms = await hostOf('permissions', [shell, permissions(options)]);
const quiet = await hostOf('permissions, no decision events', [shell, permissions({ ...options, recordDecisions: false })]);

// The decision events permissions logs for the calls: the floor plugin logs the same data.
for (const call of [bashCall, readCall, unresolvedCall]) await withPerms.host.runStep({ calls: [{ id: `probe-${call.name}`, ...call }] });
const logged = new Map(
  withPerms.host.events
    .list()
    .filter((e) => e.type === 'permissions/decision')
    .map((e) => [e.data.tool, e.data]),
);
const floor = await hostOf('floor', [shell, floorPlugin(logged)]);
const quietFloor = await hostOf('floor, no decision events', [shell, floorPlugin(undefined)]);

const bash = await measure(bare, withPerms, bashCall);
const bashFloor = await measure(bare, floor, bashCall, 36);
const quietBash = await measure(bare, quiet, bashCall);
const quietBashFloor = await measure(bare, quietFloor, bashCall, 36);
const read = await measure(bare, withPerms, readCall);
const readFloor = await measure(bare, floor, readCall, 36);
const unresolved = await measure(bare, withPerms, unresolvedCall);
const unresolvedFloor = await measure(bare, floor, unresolvedCall, 36);

// The decision alone, and each of its stages, with the plugin's own rule set and grant store.
const checker = permissions(options);
const h = createHost();
await h.use(shell);
await h.use(checker);
const ruleSet = new RuleSet(checker.rules(), anchors);
const store = new GrantStore({ file: grantsFile, project: dir, agent: 'main', anchors, lockTimeoutMs: 5000, onProblem: () => undefined });
const eventsHost = createHost();
eventsHost.events.define('floor/decision', decisionSchema);
const identity = { id: 'c', token: 't' };

let fresh = 0;
/**
 * Each stage a call goes through in the tap, timed alone. `resolved`: the tool declares `resolvePaths`,
 * so the tap takes its path as core resolved it (the realpath is then core's, in the bare pipeline too).
 */
function stagesOf(call, claudeName, toExternal, resolved) {
  const subjectOptions = resolved ? { pathsResolved: true } : undefined;
  const subjectNow = () => subjectOf(claudeName, toExternal(call.args), anchors, call.name, subjectOptions);
  const subject = subjectNow();
  const decideInput = { subject, mode: 'default', rules: ruleSet, grants: [], workspace: [dir], readOnly: false };
  const stages = [
    [`subject (Claude input, ${subject.command === undefined ? 'path' : 'command split'})`, subjectNow],
    ...(subject.paths === undefined
      ? []
      : [[`  realpath (one readlink per path part)${resolved ? ': core’s, not the tap’s' : ''}`, () => realOrSelf(call.args.path)]]),
    // The bench repeats one line, which the scanner's cache of recent lines serves; a model's lines are mostly new.
    ...(subject.command === undefined
      ? []
      : [
          [
            '  the same with a new line each call (no scanner cache)',
            () => {
              fresh += 1;
              return subjectOf(claudeName, { command: `${call.args.command} # ${fresh}` }, anchors, call.name);
            },
          ],
        ]),
    [
      'deny and ask rules (indexed by tool, first word)',
      () => {
        ruleSet.firstMatch('deny', subject);
        ruleSet.firstMatch('ask', subject);
        ruleSet.hasSpecificDenyOrAsk(subject);
      },
    ],
    ['grants file check (one stat)', () => store.ruleSets()],
    ['allow rules and grants (coverage)', () => coverage(subject, [ruleSet])],
    ['decide() whole: the two above + reason and objects', () => decide(decideInput)],
    [
      'the tap’s decision: subject, rules, grants',
      () =>
        decide({
          ...decideInput,
          subject: subjectNow(),
          get grants() {
            return store.ruleSets();
          },
        }),
    ],
    ['decision event (schema check + log append)', () => void eventsHost.events.emit('floor/decision', logged.get(call.name), identity)],
  ];
  return stages;
}

/** µs added per call, and how far the two passes' added µs were apart. */
const added = (r) => ({
  value: r.ours - r.base,
  spread: Math.abs(r.passes[0].ours - r.passes[0].base - (r.passes[1].ours - r.passes[1].base)),
  rounds: r.rounds,
});

const rows = [
  ['500 rules: added per Bash call through the pipeline', bash, bashFloor, bashCall, 'Bash', toShell, false],
  ['500 rules: added per Bash call, recordDecisions: false', quietBash, quietBashFloor, undefined],
  ['500 rules: added per Read call through the pipeline', read, readFloor, readCall, 'Read', toRead, true],
  ['500 rules: added per Read call, a tool without resolvePaths', unresolved, unresolvedFloor, unresolvedCall, 'Read', toRead, false],
];
console.log(`${set.allow.length + set.deny.length + set.ask.length} rules, ${calls} one-call steps each; CPU µs per call`);
console.log('Read: a file tool as tool-fs writes them (core resolves its path before any tap); the last row a tool that does not');
for (const [label, r, f, call, claudeName, toExternal, resolved] of rows) {
  console.log(
    `\n${label}: bare ${r.base.toFixed(1)} µs, with permissions ${r.ours.toFixed(1)} µs, added ${(r.ours - r.base).toFixed(1)} µs; floor plugin added ${(f.ours - f.base).toFixed(1)} µs`,
  );
  if (call !== undefined) {
    const stages = stagesOf(call, claudeName, toExternal, resolved);
    const times = stageTimes(stages);
    const of = (prefix) => times[stages.findIndex(([name]) => name.startsWith(prefix))] ?? 0;
    for (const [k, [name]] of stages.entries()) console.log(`  ${name.padEnd(54)} ${times[k].toFixed(2).padStart(7)} µs`);
    // What core costs for the hooks: the floor plugin's added cost less the stat, realpath and event it does too.
    const realpath = resolved ? 0 : of('  realpath');
    const hops = f.ours - f.base - of('grants file') - realpath - of('decision event');
    const unaccounted = r.ours - r.base - of('the tap’s decision') - of('decision event') - hops;
    console.log(`  ${'core running the tap, the result tap and the guard'.padEnd(54)} ${hops.toFixed(2).padStart(7)} µs`);
    console.log(`  ${'unaccounted (the collector, the pending map, noise)'.padEnd(54)} ${unaccounted.toFixed(2).padStart(7)} µs`);
  }
}
console.log('');
for (const [label, r, f] of rows) {
  const floorValue = f.ours - f.base;
  recordValue({
    pkg: 'permissions',
    label,
    unit: 'µs',
    target: 20,
    ...added(r),
    floor: {
      value: floorValue,
      what: 'the same hooks doing only a grants-file stat, a realpath for a tool that does not resolve its paths, and the decision event',
    },
    note: `(ratio ${r.ratio.toFixed(2)}x to the bare pipeline)`,
  });
}
const decideOnly = stageTimes([['check', () => checker.check('shell', bashCall.args)]])[0];
recordValue({ pkg: 'permissions', label: '500 rules: the decision alone (plugin.check)', value: decideOnly, unit: 'µs', target: 20 });
rmSync(dir, { recursive: true, force: true });
