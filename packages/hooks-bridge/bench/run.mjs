// Ratios measured in one run (no absolute thresholds): the bridge's cost per
// matching hook against spawning the same command by hand, five 100 ms hooks
// against one, and a hook skipped by its `if` against one skipped by its matcher.
// One hook is one process: spawning it by hand (same shell, same pipes, same payload on stdin,
// waiting for its pipes to close) is the floor of the design, and the ratio's baseline. The two
// sides alternate round by round until two passes agree (scripts/bench/stable-ratio.mjs).
// Five hooks run at once, as Claude Code runs them, but Node's spawn() blocks its thread until the
// child has exec'd (libuv forks, then waits on a pipe the exec closes): the five start one after
// another, and on a loaded machine each start waits for the child to be scheduled. The floor of
// "five vs one" is the same five spawns by hand, started together, against one by hand.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { definePlugin, defineTool, z } from '@deepseek-ai/dsh-core';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { median as medianOf } from '../../../scripts/bench/interleave.mjs';
import { recordRatio } from '../../../scripts/bench/report.mjs';
import { stableRatio } from '../../../scripts/bench/stable-ratio.mjs';
import { hooksBridge } from '../dist/index.js';

const rounds = Number(process.env.BENCH_ROUNDS ?? 30);
const dir = mkdtempSync(join(tmpdir(), 'dsh-hooks-bench-'));

const tools = definePlugin({
  name: 'bench-tools',
  version: '0',
  register(host) {
    host.tools.register(
      defineTool({
        name: 'bash',
        description: 'Does nothing.',
        input: z.object({ command: z.string() }),
        execute: () => 'ok',
        external: { claude: { name: 'Bash', toExternal: (a) => ({ command: a.command }), fromExternal: (i) => ({ command: i.command }) } },
      }),
    );
  },
});

/** Spawns `command` as a hook is spawned; `marks`, when given, gets when spawn() was called and how long it blocked. */
function byHand(command, stdin, marks) {
  return new Promise((resolve) => {
    const start = performance.now();
    const child = spawn('/bin/sh', ['-c', command], { stdio: 'pipe', detached: true });
    marks?.push({ start, blocked: performance.now() - start });
    child.stdout.resume();
    child.stderr.resume();
    child.stdin.on('error', () => undefined);
    child.on('close', resolve);
    child.stdin.end(stdin);
  });
}

async function median(fn) {
  const times = [];
  for (let i = 0; i < rounds; i += 1) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

async function hostWith(commands) {
  return createTestHost({
    plugins: [
      tools,
      hooksBridge({
        projectDir: dir,
        userSettings: false,
        hooks: { claude: { PreToolUse: [{ matcher: 'Bash', hooks: commands.map((command) => ({ type: 'command', command })) }] } },
      }),
    ],
  });
}

const payload = `${JSON.stringify({ session_id: 's', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls -la' } })}\n`;
const readStdin = 'cat >/dev/null';

const one = await hostWith([readStdin]);
const bare = await createTestHost({ plugins: [tools] });
const timed = (fn) => async () => {
  const start = performance.now();
  await fn();
  return performance.now() - start;
};
const hook = await stableRatio(
  timed(() => byHand(readStdin, payload)),
  timed(() => one.call('bash', { command: 'ls -la' })),
  { rounds: 9, maxRounds: 36 },
);
const [manual, bridged] = [hook.base, hook.ours];

const sleeps = Array.from({ length: 5 }, (_, i) => `cat >/dev/null; sleep 0.1; : ${i}`);
const single = await hostWith([sleeps[0]]);
const five = await hostWith(sleeps);
const slow = await stableRatio(
  timed(() => single.call('bash', { command: 'ls' })),
  timed(() => five.call('bash', { command: 'ls' })),
  { rounds: 5, maxRounds: 20 },
);
const [oneSlow, fiveSlow] = [slow.base, slow.ours];
// The floor: the same five commands spawned by hand, all at once, against one; alternated likewise.
const slowPayload = `${JSON.stringify({ session_id: 's', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' } })}\n`;
const handStages = [];
// Only the rounds after the warm-up count in the stage table.
const warm = (fn) => {
  let calls = 0;
  return async () => {
    calls += 1;
    const ms = await fn();
    if (calls <= 2) handStages.pop();
    return ms;
  };
};
const fiveByHand = async () => {
  const marks = [];
  const start = performance.now();
  await Promise.all(sleeps.map((command) => byHand(command, slowPayload, marks)));
  const end = performance.now();
  handStages.push({
    blocked: marks.reduce((sum, m) => sum + m.blocked, 0),
    lastStart: Math.max(...marks.map((m) => m.start)) - start,
    total: end - start,
  });
  return end - start;
};
const slowFloor = await stableRatio(
  timed(() => byHand(sleeps[0], slowPayload)),
  warm(fiveByHand),
  { rounds: 5, maxRounds: 20 },
);
// The bridge's own share of the five: the same five through it against the five by hand, alternated.
const fiveOverHand = await stableRatio(
  warm(fiveByHand),
  timed(() => five.call('bash', { command: 'ls' })),
  { rounds: 5, maxRounds: 20 },
);

// A hook its `if` skips costs a scan of the command line (the shared scanner of @deepseek-ai/dsh-rules), never a spawn.
const ifSkipped = await createTestHost({
  plugins: [
    tools,
    hooksBridge({
      projectDir: dir,
      userSettings: false,
      hooks: { claude: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: readStdin, if: 'Bash(git push *)' }] }] } },
    }),
  ],
});
// The same hook skipped by its matcher instead: the difference is the `if` alone.
const matcherSkipped = await createTestHost({
  plugins: [
    tools,
    hooksBridge({
      projectDir: dir,
      userSettings: false,
      hooks: { claude: { PreToolUse: [{ matcher: 'Edit', hooks: [{ type: 'command', command: readStdin }] }] } },
    }),
  ],
});
const callsPerRound = 200;
let line = 0;
const perCall = (t) => async () => {
  for (let i = 0; i < callsPerRound; i += 1) {
    line += 1;
    // A fresh line each call, so no scan is served from the scanner's cache.
    await t.call('bash', { command: `cd repo && GIT_TRACE=1 git status --short # ${line}` });
  }
};
// The two alternate round by round: measured one after the other, the first read 7x the second
// (it ran while the five-hook rounds' children were still being reaped).
const timedRound = (t) => async () => {
  const start = performance.now();
  await perCall(t)();
  return (performance.now() - start) / callsPerRound;
};
const ifVsMatcher = await stableRatio(timedRound(matcherSkipped), timedRound(ifSkipped), { rounds: 9, maxRounds: 36 });
const skippedMs = ifVsMatcher.ours;
const matcherMs = ifVsMatcher.base;

// Where a bridged hook's time goes: the spawn by hand is the floor; the bridge adds the pipeline
// (a bare call), its own work on a call (a call whose hook the matcher skips: the dialect view,
// the matching) and, for the hook that runs, the payload, the hook/invoked and hook/result events.
const bareMs = (await median(perCall(bare))) / callsPerRound;
rmSync(dir, { recursive: true, force: true });
const us = (ms) => `${(ms * 1000).toFixed(0).padStart(8)} µs`;
console.log(`rounds: ${rounds} (medians); one hook: ${hook.rounds} alternated rounds`);
console.log('one matching hook, where the time goes:');
console.log(`  spawn by hand (/bin/sh -c, pipes, payload on stdin, until the pipes close) ${us(manual)}   the floor`);
console.log(`  the same hook through the bridge and the pipeline                          ${us(bridged)}`);
console.log(`    added by the bridge                                                       ${us(bridged - manual)}`);
console.log(`    of which the bare pipeline's call                                         ${us(bareMs)}`);
console.log(`    of which the bridge's work on a call whose hook its matcher skips          ${us(matcherMs - bareMs)}`);
console.log(
  `    the rest: payload, two events, settling after the pipes close              ${us(bridged - manual - matcherMs)} (noise of the spawn included)`,
);
recordRatio({
  pkg: 'hooks-bridge',
  label: 'one matching hook vs the same spawn by hand',
  ratio: hook.ratio,
  target: 1.2,
  spread: hook.spread,
  rounds: hook.rounds,
  floor: { value: 1, what: 'the spawn by hand' },
  note: `(${bridged.toFixed(1)} ms vs ${manual.toFixed(1)} ms)`,
});
const stage = (key) => medianOf(handStages.map((s) => s[key]));
console.log(`five 100 ms hooks at once, where the time goes (median of ${handStages.length} rounds by hand, ms):`);
console.log(`  one hook by hand                                              ${slowFloor.base.toFixed(1).padStart(7)}`);
console.log(
  `  five by hand, started together                                ${slowFloor.ours.toFixed(1).padStart(7)}   ${slowFloor.ratio.toFixed(2)}x: the floor`,
);
console.log(`    spawn() blocking the thread until each child exec'd, summed ${stage('blocked').toFixed(1).padStart(7)}`);
console.log(`    so the fifth hook starts this long after the first          ${stage('lastStart').toFixed(1).padStart(7)}`);
console.log(
  `  five through the bridge                                       ${fiveSlow.toFixed(1).padStart(7)}   ${slow.ratio.toFixed(2)}x`,
);
console.log(
  `    against the five by hand, alternated                        ${fiveOverHand.ratio.toFixed(2).padStart(7)}x (spread ${fiveOverHand.spread.toFixed(3)}): what the bridge adds`,
);
recordRatio({
  pkg: 'hooks-bridge',
  label: 'five 100 ms hooks vs one',
  ratio: slow.ratio,
  target: 1.3,
  spread: slow.spread,
  rounds: slow.rounds,
  floor: { value: slowFloor.ratio, what: 'the same five spawns by hand, started together, vs one' },
  note: `(${fiveSlow.toFixed(1)} ms vs ${oneSlow.toFixed(1)} ms)`,
});
console.log(
  `a call whose hook its "if" skips vs one its matcher skips: ${ifVsMatcher.ratio.toFixed(2)}x, spread ${ifVsMatcher.spread.toFixed(3)} over ${ifVsMatcher.rounds} alternated rounds (${(skippedMs * 1000).toFixed(1)} µs vs ${(matcherMs * 1000).toFixed(1)} µs per call)`,
);
