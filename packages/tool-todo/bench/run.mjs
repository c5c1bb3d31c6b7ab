// Benchmark of tool-todo, printed as a ratio against a baseline measured in the same run:
// `todo_write` with an 8-item list through the whole pipeline, against a no-op tool that takes
// the same arguments (loosely typed) and returns nothing. Target: at most 1.2x. Never fails; the row
// goes into `pnpm bench`'s summary table (scripts/bench/summary.mjs).
import { z } from '@deepseek-ai/dsh-core';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { recordRatio } from '../../../scripts/bench/report.mjs';
import { stableRatio } from '../../../scripts/bench/stable-ratio.mjs';
import { toolTodo } from '../dist/index.js';

const callsPerRound = 1000;

// The same eight steps each call, the work moving one step on: what a model sends as it progresses.
const lists = Array.from({ length: 8 }, (_, current) => ({
  todos: Array.from({ length: 8 }, (_, i) => ({
    content: `Step ${i + 1} of the plan: change the parser and its tests`,
    status: i < current ? 'completed' : i === current ? 'in_progress' : 'pending',
    activeForm: `Working on step ${i + 1}`,
  })),
}));

// Retain only the last events, as a long session would: the log's own growth is not what is measured.
const t = await createTestHost({ plugins: [toolTodo()], retainEvents: 1000 });
t.host.tools.register({
  name: 'noop',
  description: 'Does nothing.',
  input: z.object({ todos: z.array(z.unknown()) }),
  execute: () => ({}),
});
// The same no-op, logging the list as a `todo/write` event: how much of the difference is the log's.
t.host.tools.register({
  name: 'noop_logged',
  description: 'Does nothing but log the list.',
  input: z.object({ todos: z.array(z.unknown()) }),
  execute: async (args, ctx) => {
    await ctx.emit('todo/write', { todos: args.todos });
    return {};
  },
});

async function time(name) {
  // CPU time of this process, not wall time: other work on a shared machine does not land in it.
  const start = process.cpuUsage();
  for (let i = 0; i < callsPerRound; i += 1) {
    const outcome = await t.call(name, lists[i % 8]);
    if (outcome.status !== 'ok') throw new Error(JSON.stringify(outcome));
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / callsPerRound;
}

// Alternated rounds until two passes agree within 0.05 (scripts/bench/stable-ratio.mjs); the log's share alongside.
const loggedRatio = await stableRatio(
  () => time('noop'),
  () => time('noop_logged'),
  { rounds: 7, maxRounds: 28 },
);
const todo = await stableRatio(
  async () => {
    t.ui.cards.length = 0;
    return time('noop');
  },
  () => time('todo_write'),
  { rounds: 11, maxRounds: 88 },
);
console.log(
  `todo_write through the pipeline (median of per-round ratios over ${todo.rounds} alternated rounds of ${callsPerRound} calls, µs of CPU per call)`,
);
console.log(`  no-op tool, same args   ${todo.base.toFixed(1).padStart(8)}   1.00x`);
console.log(`  no-op logging todo/write ${loggedRatio.ours.toFixed(1).padStart(8)}   ${loggedRatio.ratio.toFixed(2)}x`);
recordRatio({
  pkg: 'tool-todo',
  label: 'todo_write (8 items) vs a no-op tool with the same args',
  ratio: todo.ratio,
  target: 1.2,
  spread: todo.spread,
  rounds: todo.rounds,
  floor: { value: loggedRatio.ratio, what: 'a no-op that only logs the todo/write event' },
  note: `(${todo.ours.toFixed(1)} µs vs ${todo.base.toFixed(1)} µs of CPU per call)`,
});
