// Per-call cost of deciding against 500 rules, against the bare pipeline measured in the same run.
// Run after a build: `pnpm bench` (or `node bench/run.mjs` in this package). Bare and with permissions
// alternate round by round until two passes agree; the rows go into `pnpm bench`'s summary table.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost, definePlugin, defineTool, z } from '@deepseek-ai/dsh-core';
import { recordValue } from '../../../scripts/bench/report.mjs';
import { stableRatio } from '../../../scripts/bench/stable-ratio.mjs';
import { permissions } from '../dist/index.js';

const calls = Number(process.env.BENCH_CALLS ?? 20_000);
const dir = mkdtempSync(join(tmpdir(), 'dsh-perm-bench-'));
mkdirSync(join(dir, 'src'));
writeFileSync(join(dir, 'src', 'a.ts'), 'export {};\n');

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
        external: { claude: { name: 'Bash', toExternal: (a) => ({ command: a.command }), fromExternal: (i) => ({ command: i.command }) } },
      }),
    );
    host.tools.register(
      defineTool({
        name: 'read_file',
        description: 'does nothing',
        input: z.object({ path: z.string() }),
        execute: () => 'ok',
        external: { claude: { name: 'Read', toExternal: (a) => ({ file_path: a.path }), fromExternal: (i) => ({ path: i.file_path }) } },
      }),
    );
  },
});

/** 500 rules of the kinds people write: Bash prefixes and exact commands, paths, domains, MCP tools. */
function rules() {
  const allow = [];
  const deny = [];
  const ask = [];
  const words = ['git', 'npm', 'pnpm', 'yarn', 'make', 'cargo', 'go', 'docker', 'kubectl', 'python', 'node', 'ls', 'cat', 'grep', 'sed'];
  for (let i = 0; i < 300; i += 1) allow.push(`Bash(${words[i % words.length]} sub${i} *)`);
  for (let i = 0; i < 60; i += 1) allow.push(`Bash(${words[i % words.length]} exact${i})`);
  allow.push('Bash(git status)', 'Bash(npm test)');
  for (let i = 0; i < 60; i += 1) deny.push(`Bash(${words[i % words.length]} danger${i} *)`);
  for (let i = 0; i < 20; i += 1) ask.push(`Bash(*push${i}*)`);
  for (let i = 0; i < 30; i += 1) deny.push(`Read(./secret${i}/**)`);
  for (let i = 0; i < 20; i += 1) allow.push(`WebFetch(domain:site${i}.example.com)`);
  while (allow.length + deny.length + ask.length < 500) allow.push(`mcp__server${allow.length}`);
  return { allow, deny, ask };
}

async function hostOf(label, plugins) {
  const host = createHost({ defaultDecision: 'allow', approval: () => 'rejected' });
  for (const p of plugins) await host.use(p);
  return { label, host };
}

let id = 0;
/** µs per one-call step over `n` steps of `args` on `h`. */
async function perCall(h, args, n) {
  const start = performance.now();
  for (let i = 0; i < n; i += 1) {
    id += 1;
    const { results } = await h.host.runStep({ calls: [{ id: `c${id}`, name: args.name, args: args.args }] });
    if (results[0].outcome.status !== 'ok') throw new Error(`${h.label}: ${JSON.stringify(results[0].outcome)}`);
  }
  return ((performance.now() - start) * 1000) / n;
}

/** The bare pipeline and the same with permissions, in alternated rounds until two passes agree. */
async function measure(bare, withPerms, args) {
  await perCall(bare, args, Math.min(2000, calls));
  await perCall(withPerms, args, Math.min(2000, calls));
  const perRound = Math.max(200, Math.floor(calls / 20));
  return stableRatio(
    () => perCall(bare, args, perRound),
    () => perCall(withPerms, args, perRound),
    { rounds: 9, maxRounds: 72 },
  );
}

const set = rules();
const bashCall = { name: 'shell', args: { command: 'git status && npm test' } };
const readCall = { name: 'read_file', args: { path: join(dir, 'src', 'a.ts') } };
const options = { projectDir: dir, homeDir: dir, settingsFiles: false, rules: set };

const bare = await hostOf('bare', [shell]);
const withPerms = await hostOf('permissions', [shell, permissions(options)]);
const quiet = await hostOf('permissions, no decision events', [shell, permissions({ ...options, recordDecisions: false })]);
const bash = await measure(bare, withPerms, bashCall);
const quietBash = await measure(bare, quiet, bashCall);
const read = await measure(bare, withPerms, readCall);
const [baseBash, permBash, baseRead, permRead] = [bash.base, bash.ours, read.base, read.ours];

const checker = permissions(options);
const h = createHost();
await h.use(shell);
await h.use(checker);
for (let i = 0; i < 2000; i += 1) checker.check('shell', bashCall.args);
const t0 = performance.now();
for (let i = 0; i < calls; i += 1) checker.check('shell', bashCall.args);
const decideOnly = ((performance.now() - t0) * 1000) / calls;

const row = (name, base, withPerms) =>
  `${name.padEnd(44)} bare ${base.toFixed(1).padStart(6)} µs   with permissions ${withPerms.toFixed(1).padStart(6)} µs   added ${(withPerms - base).toFixed(1).padStart(5)} µs   ratio ${(withPerms / base).toFixed(2)}x`;
console.log(`${set.allow.length + set.deny.length + set.ask.length} rules, ${calls} one-call steps each`);
console.log(row('Bash "git status && npm test" (allowed)', baseBash, permBash));
console.log(row('  same, recordDecisions: false', quietBash.base, quietBash.ours));
console.log(row('Read inside the workspace (allowed by mode)', baseRead, permRead));
console.log(`${'decision alone (plugin.check)'.padEnd(44)} ${decideOnly.toFixed(1)} µs per call   target: at most 20 µs added per call`);
/** µs added per call, and how far the two passes' added µs were apart. */
const added = (r) => ({
  value: r.ours - r.base,
  spread: Math.abs(r.passes[0].ours - r.passes[0].base - (r.passes[1].ours - r.passes[1].base)),
  rounds: r.rounds,
});
for (const [label, r] of [
  ['500 rules: added per Bash call through the pipeline', bash],
  ['500 rules: added per Bash call, recordDecisions: false', quietBash],
  ['500 rules: added per Read call through the pipeline', read],
]) {
  recordValue({
    pkg: 'permissions',
    label,
    unit: 'µs',
    target: 20,
    ...added(r),
    note: `(ratio ${r.ratio.toFixed(2)}x to the bare pipeline)`,
  });
}
recordValue({ pkg: 'permissions', label: '500 rules: the decision alone (plugin.check)', value: decideOnly, unit: 'µs', target: 20 });
rmSync(dir, { recursive: true, force: true });
