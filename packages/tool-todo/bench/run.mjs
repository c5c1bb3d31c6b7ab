// Benchmark of tool-todo, printed as a ratio against a baseline measured in the same run:
// `todo_write` with an 8-item list through the whole pipeline, against a no-op tool that takes
// the same arguments (loosely typed) and returns nothing. Target: at most 1.2x. Never fails; the row
// goes into `pnpm bench`'s summary table (scripts/bench/summary.mjs).
// The floor of the design is what any `todo_write` must have core do: check the 8 items against the
// tool's input schema, and log the list with its diff as a `todo/write` event (core checks the event
// against its schema and walks it for its size). The floor tool does exactly that, with the diff
// worked out before the run and constant cards; what todo_write costs above it is the plugin's own
// work (the rule checks, the diff, the message, the cards' text) and the garbage collection of what that
// work allocates: the bench prints the bytes each tool allocates per call next to the CPU of each part.
// The cards' text is worked out once per call for both cards and the message (src/list-text.ts), so
// the part that remains is what any todo tool must make per call: one body, a count line, the diff and
// the message, and the collection of what the log and the cards keep of them.
// Each side is measured against the no-op in alternated rounds until two passes agree
// (scripts/bench/stable-ratio.mjs); CPU time of this process, not wall time.

import v8 from 'node:v8';
import { z } from '@deepseek-ai/dsh-core';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { recordRatio } from '../../../scripts/bench/report.mjs';
import { stableRatio } from '../../../scripts/bench/stable-ratio.mjs';
import { describeDiff, diffTodos, todoInputSchema, toolTodo } from '../dist/index.js';
import { listTextMemo } from '../dist/list-text.js';

const callsPerRound = 1000;

// The same eight steps each call, the work moving one step on: what a model sends as it progresses.
const lists = Array.from({ length: 8 }, (_, current) => ({
  todos: Array.from({ length: 8 }, (_, i) => ({
    content: `Step ${i + 1} of the plan: change the parser and its tests`,
    status: i < current ? 'completed' : i === current ? 'in_progress' : 'pending',
    activeForm: `Working on step ${i + 1}`,
  })),
}));
// Call i sends list i % 8, so its diff is against list (i - 1) % 8: worked out once, for the floor.
const diffs = lists.map((list, i) => diffTodos(lists[(i + 7) % 8].todos, list.todos));

// Retain only the last events, as a long session would: the log's own growth is not what is measured.
const t = await createTestHost({ plugins: [toolTodo()], retainEvents: 1000 });
t.host.tools.register({
  name: 'noop',
  description: 'Does nothing.',
  input: z.object({ todos: z.array(z.unknown()) }),
  execute: () => ({}),
});
const inputSchema = todoInputSchema({ maxItems: 100, maxContentChars: 2000 });
const card = Object.freeze({ title: 'Todos' });
const output = Object.freeze({ message: 'Todo list updated.', counts: Object.freeze({ pending: 0, in_progress: 0, completed: 0 }) });
let calls = 0;
// The floor: todo_write's input schema, the same event with a diff made beforehand, a constant output and cards.
t.host.tools.register({
  name: 'todo_floor',
  description: 'Checks and logs the list, nothing else.',
  input: inputSchema,
  execute: async (args, ctx) => {
    await ctx.emit('todo/write', { todos: args.todos, diff: diffs[calls % 8] });
    return output;
  },
  present: { presentCall: () => card, presentResult: () => card },
});

async function time(name) {
  // CPU time of this process, not wall time: other work on a shared machine does not land in it.
  const start = process.cpuUsage();
  for (let i = 0; i < callsPerRound; i += 1) {
    calls = i;
    const outcome = await t.call(name, lists[i % 8]);
    if (outcome.status !== 'ok') throw new Error(JSON.stringify(outcome));
  }
  const used = process.cpuUsage(start);
  // The recorded cards would pile up and make the collector's work grow from round to round.
  t.ui.cards.length = 0;
  return (used.user + used.system) / callsPerRound;
}

const cpuNow = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
/** CPU µs per run of `fn`, timed alone over `n` runs (list i % 8 each time). */
const alone = (fn, n = 20_000) => {
  // Warmed until optimised, as it is inside the pipeline after the rounds: 1,000 runs left some parts unoptimised.
  for (let i = 0; i < 20_000; i += 1) fn(i % 8);
  const start = cpuNow();
  for (let i = 0; i < n; i += 1) fn(i % 8);
  return (cpuNow() - start) / n;
};

for (const name of ['noop', 'todo_floor', 'todo_write']) await time(name);
// Alternated rounds until two passes agree within 0.05 (scripts/bench/stable-ratio.mjs).
const todo = await stableRatio(
  () => time('noop'),
  () => time('todo_write'),
  { rounds: 11, maxRounds: 88 },
);
const floor = await stableRatio(
  () => time('noop'),
  () => time('todo_floor'),
  { rounds: 11, maxRounds: 88 },
);
const eventSchema = t.host.events.schemas().get('todo/write');
const parsed = lists.map((list) => inputSchema.parse(list));
const events = parsed.map((list, i) => ({ todos: list.todos, diff: diffs[i] }));
const cardText = listTextMemo();
const summaries = parsed.map((list) => listTextMemo()(list.todos).summary);
const stages = [
  ['the input schema (8 items, one pass for the text rules)', alone((k) => inputSchema.safeParse(lists[k]))],
  ["the event's schema check (list and diff)", alone((k) => eventSchema.safeParse(events[k]))],
  ['diffTodos against the previous list', alone((k) => diffTodos(parsed[(k + 7) % 8].todos, parsed[k].todos))],
  ['the message (describeDiff and the count line)', alone((k) => `(${describeDiff(diffs[k])}). ${summaries[k]}.`)],
  ["the cards' text, once per call (body and count line)", alone((k) => cardText(parsed[k].todos))],
];

// Bytes allocated per call, read from the young generation around 100 calls that no collection
// interrupted (a collection empties it): what the collector has to go through, per tool.
const youngUsed = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_used_size ?? 0;
async function allocatedPerCall(name) {
  const samples = [];
  for (let tries = 0; samples.length < 9 && tries < 500; tries += 1) {
    const before = youngUsed();
    for (let i = 0; i < 100; i += 1) await t.call(name, lists[i % 8]);
    const after = youngUsed();
    if (after > before) samples.push((after - before) / 100);
    t.ui.cards.length = 0;
  }
  samples.sort((a, b) => a - b);
  return samples[samples.length >> 1] ?? Number.NaN;
}
const allocated = [];
for (const name of ['noop', 'todo_floor', 'todo_write']) allocated.push([name, await allocatedPerCall(name)]);
const row = (label, us, ratio = '') => console.log(`  ${label.padEnd(58)} ${us.toFixed(2).padStart(7)}   ${ratio}`);
console.log(
  `todo_write through the pipeline (median of per-round ratios over ${todo.rounds} alternated rounds of ${callsPerRound} calls, µs of CPU per call)`,
);
row('no-op tool, same args', todo.base, '1.00x');
row(
  'the floor: same input schema, same event, constant cards',
  floor.ours,
  `${floor.ratio.toFixed(2)}x (spread ${floor.spread.toFixed(3)})`,
);
row('todo_write', todo.ours, `${todo.ratio.toFixed(2)}x (spread ${todo.spread.toFixed(3)})`);
row('  todo_write beyond the floor', todo.ours - todo.base - (floor.ours - floor.base));
console.log('each part alone (µs of CPU per run, outside the pipeline):');
for (const [label, us] of stages) row(`  ${label}`, us);
console.log('bytes allocated per call (the young generation; median of 9 samples of 100 calls):');
for (const [name, bytes] of allocated) console.log(`  ${name.padEnd(58)} ${bytes.toFixed(0).padStart(7)}`);
recordRatio({
  pkg: 'tool-todo',
  label: 'todo_write (8 items) vs a no-op tool with the same args',
  ratio: todo.ratio,
  target: 1.2,
  spread: todo.spread,
  rounds: todo.rounds,
  floor: { value: floor.ratio, what: "todo_write's input schema and the same todo/write event, nothing else" },
  note: `(${todo.ours.toFixed(1)} µs vs ${todo.base.toFixed(1)} µs of CPU per call)`,
});
