// Benchmark of tool-skill, printed as a ratio against a baseline measured in the same run:
// the `skill` tool (a 4 KB SKILL.md with 3 bundled files) through the whole pipeline, against a
// no-op tool with the same `{ name }` argument. Target: at most 1.2x. Never fails.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from '@deepseek-ai/dsh-core';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { recordRatio } from '../../../scripts/bench/report.mjs';
import { toolSkill } from '../dist/index.js';

const rounds = 21;
const callsPerRound = 1000;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const base = mkdtempSync(path.join(tmpdir(), 'dsh-skill-bench-'));
try {
  const dir = path.join(base, 'skills', 'release');
  mkdirSync(path.join(dir, 'scripts'), { recursive: true });
  const steps = Array.from({ length: 60 }, (_, i) => `${i + 1}. Check item ${i + 1} of the release list, then note it.`).join('\n');
  writeFileSync(
    path.join(dir, 'SKILL.md'),
    `---\nname: release\ndescription: Cut a release.\nallowed-tools: Bash(git tag:*) Read\n---\n# Release\n\n${steps}\n`,
  );
  for (const f of ['checklist.md', 'notes.md', 'scripts/tag.sh']) writeFileSync(path.join(dir, f), 'x\n');

  const t = await createTestHost({ plugins: [toolSkill({ roots: [path.join(base, 'skills')] })], retainEvents: 1000 });
  const input = z.object({ name: z.string() });
  t.host.tools.register({ name: 'noop', description: 'Does nothing.', input, execute: () => ({}) });
  // The same no-op, logging a skill/loaded event: how much of the difference is the log's.
  t.host.tools.register({
    name: 'noop_logged',
    description: 'Does nothing but log.',
    input,
    execute: async (args, ctx) => {
      await ctx.emit('skill/loaded', { name: args.name, directory: dir, source: 'bench', allowedTools: [], files: 3 });
      return {};
    },
  });

  // CPU time of this process, not wall time: other work on a shared machine does not land in it.
  async function time(name) {
    const start = process.cpuUsage();
    for (let i = 0; i < callsPerRound; i += 1) {
      const outcome = await t.call(name, { name: 'release' });
      if (outcome.status !== 'ok') throw new Error(JSON.stringify(outcome));
    }
    const used = process.cpuUsage(start);
    t.ui.cards.length = 0;
    return (used.user + used.system) / callsPerRound;
  }

  const names = ['noop', 'noop_logged', 'skill'];
  for (const name of names) await time(name);
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r += 1) for (const name of names) samples[name].push(await time(name));
  const [noop, logged, skill] = names.map((n) => median(samples[n]));
  console.log(`skill through the pipeline (median of ${rounds} rounds of ${callsPerRound} calls, µs of CPU per call)`);
  console.log(`  no-op tool, same args    ${noop.toFixed(1).padStart(8)}   1.00x`);
  console.log(`  no-op logging the event  ${logged.toFixed(1).padStart(8)}   ${(logged / noop).toFixed(2)}x`);
  console.log(`  skill (4 KB, 3 files)    ${skill.toFixed(1).padStart(8)}   ${(skill / noop).toFixed(2)}x`);
  recordRatio({ pkg: 'tool-skill', label: 'skill (4 KB, 3 files) vs a no-op tool', ratio: skill / noop, target: 1.2 });
} finally {
  rmSync(base, { recursive: true, force: true });
}
