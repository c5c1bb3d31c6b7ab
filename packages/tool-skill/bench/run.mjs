// Benchmark of tool-skill, printed as a ratio against a baseline measured in the same run:
// the `skill` tool (a 4 KB SKILL.md with 3 bundled files) through the whole pipeline, against a
// no-op tool with the same `{ name }` argument. Target: at most 1.2x. Never fails.
// The floor of the design is a no-op tool that logs the same `skill/loaded` event: loading a skill
// must log it, and core's log append (the schema check, the envelope, the in-memory log) costs
// more than the rest of the call. Skill and floor are each measured against the no-op in
// alternated rounds until two passes agree (scripts/bench/stable-ratio.mjs).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from '@deepseek-ai/dsh-core';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { recordRatio } from '../../../scripts/bench/report.mjs';
import { stableRatio } from '../../../scripts/bench/stable-ratio.mjs';
import { skillLoadedEvent, toolSkill } from '../dist/index.js';

const callsPerRound = 1000;

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

  const cpuNow = () => {
    const { user, system } = process.cpuUsage();
    return user + system;
  };
  /** CPU µs per run of `fn`, timed alone over `n` runs. */
  const alone = (fn, n = 20_000) => {
    for (let i = 0; i < 1000; i += 1) fn();
    const start = cpuNow();
    for (let i = 0; i < n; i += 1) fn();
    return (cpuNow() - start) / n;
  };
  for (const name of ['noop', 'noop_logged', 'skill']) await time(name);
  const skill = await stableRatio(
    () => time('noop'),
    () => time('skill'),
    { rounds: 9, maxRounds: 36 },
  );
  const floor = await stableRatio(
    () => time('noop'),
    () => time('noop_logged'),
    { rounds: 9, maxRounds: 36 },
  );
  const event = { name: 'release', directory: dir, source: 'bench', allowedTools: ['Bash(git tag:*)', 'Read'], files: 3 };
  const schemaCheck = alone(() => skillLoadedEvent.safeParse(event));
  console.log(`skill through the pipeline (${skill.rounds} alternated rounds of ${callsPerRound} calls, µs of CPU per call)`);
  console.log(`  no-op tool, same args                    ${skill.base.toFixed(2).padStart(7)}   1.00x`);
  console.log(`  no-op logging skill/loaded (the floor)   ${floor.ours.toFixed(2).padStart(7)}   ${floor.ratio.toFixed(2)}x`);
  console.log(`    of which the event's schema check      ${schemaCheck.toFixed(2).padStart(7)}`);
  console.log(
    `    of which the rest of core's emit       ${(floor.ours - floor.base - schemaCheck).toFixed(2).padStart(7)}   (envelope, freeze, size, log, await)`,
  );
  console.log(`  skill (4 KB, 3 files)                    ${skill.ours.toFixed(2).padStart(7)}   ${skill.ratio.toFixed(2)}x`);
  console.log(
    `    the skill beyond the floor             ${(skill.ours - skill.base - (floor.ours - floor.base)).toFixed(2).padStart(7)}   (catalog lookup, its presenter, core finalising a 4 KB output; event and output are made once per skill)`,
  );
  recordRatio({
    pkg: 'tool-skill',
    label: 'skill (4 KB, 3 files) vs a no-op tool',
    ratio: skill.ratio,
    target: 1.2,
    spread: skill.spread,
    rounds: skill.rounds,
    floor: { value: floor.ratio, what: 'a no-op tool logging the same skill/loaded event' },
  });
} finally {
  rmSync(base, { recursive: true, force: true });
}
