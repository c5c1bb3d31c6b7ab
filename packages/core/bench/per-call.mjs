// Per-call cost of the whole pipeline against tapable's AsyncSeriesWaterfallHook, and what each
// stage adds to it, all measured in one run.
import { createHost, defineTool, z } from '@deepseek-ai/dsh-core';
import tapable from 'tapable';
import { recordRatio } from '../../../scripts/bench/report.mjs';
import { stableRatio } from '../../../scripts/bench/stable-ratio.mjs';
import { floorPipeline } from './floor-pipeline.mjs';
import { interleaved, ns, timeOps } from './timing.mjs';

const body = (args) => ({ echoed: args.text });
const echoInput = z.object({ text: z.string() });
const args = { text: 'hello' };
// What a model sends: the arguments as JSON text, which core parses losslessly.
const argsText = JSON.stringify(args);
// An edit's worth of text (640 characters, quotes and newlines escaped), as a model sends an edit call.
const editText = JSON.stringify({ text: 'const a = "x";\n'.repeat(40) });
// The log keeps 64 events in the ratio runs, as in the earlier turns' bench: a default log's
// 10,000 events slow the collector for tapable as much as for core (the breakdown shows it).
const small = { retainEvents: 64 };
const ten = 10;
const everything = { pre: ten, execute: ten, post: ten, result: ten, guards: 3 };

/**
 * A host with the echo tool and no-op taps on the points `taps` names, plus abstaining guards.
 * Default options otherwise: the session log keeps its default 10,000 events, as a real session's does.
 */
function host(options = {}, { pre = 0, execute = 0, post = 0, result = 0, guards = 0 } = {}) {
  const h = createHost({ session: 'bench', defaultDecision: 'allow', ...options });
  h.tools.register(defineTool({ name: 'echo', description: 'Echo.', input: echoInput, execute: body }));
  for (let i = 0; i < pre; i++) h.hooks.preExecute.tap(`pre-${i}`, () => undefined);
  for (let i = 0; i < execute; i++) h.hooks.execute.tap(`exec-${i}`, (_ctx, next) => next());
  for (let i = 0; i < post; i++) h.hooks.postExecute.tap(`post-${i}`, () => undefined);
  for (let i = 0; i < result; i++) h.hooks.result.tap(`result-${i}`, () => undefined);
  for (let i = 0; i < guards; i++) h.guards.register({ id: `guard-${i}`, check: () => 'abstain' });
  return h;
}

/** One single-call step per invocation. */
const callsOf = (h, sent, stepOptions) => (i) => h.runStep({ calls: [{ id: `c${i}`, name: 'echo', args: sent }] }, stepOptions);

export async function perCall() {
  // The baseline of issue 2: ten promise taps, as an async waterfall hook's taps are, then the body.
  const hook = new tapable.AsyncSeriesWaterfallHook(['args']);
  for (let i = 0; i < ten; i++) hook.tapPromise(`tap-${i}`, async () => undefined);
  const tapableCall = async () => body(await hook.promise(args));

  // The ratios: the full composition, each host alone with tapable in its run, with the
  // arguments as an object, as small JSON text and as an edit's JSON text.
  // A harness built on tapable gets the model's arguments as JSON text too and must parse them:
  // against text, the baseline parses the same text with JSON.parse before its taps.
  const tapableFromText = (sent) => async () => body(await hook.promise(JSON.parse(sent)));
  // Each pair in alternated rounds until two passes agree within 0.05 (scripts/bench/stable-ratio.mjs).
  const pair = (baseline, candidate) =>
    stableRatio(
      () => timeOps(baseline, 5_000),
      () => timeOps(candidate, 5_000),
      { rounds: 15, maxRounds: 120 },
    );
  const object = await pair(tapableCall, callsOf(host(small, everything), args));
  const text = await pair(tapableFromText(argsText), callsOf(host(small, everything), argsText));
  const edit = await pair(tapableFromText(editText), callsOf(host(small, everything), editText));
  // The design's floor against the same baselines (floor-pipeline.mjs): the contract's own work, inline.
  const floorOf = (sent) => {
    const floor = floorPipeline({ body, schema: echoInput });
    return () => floor(sent);
  };
  const floors = {
    object: await pair(tapableCall, floorOf(args)),
    text: await pair(tapableFromText(argsText), floorOf(argsText)),
    edit: await pair(tapableFromText(editText), floorOf(editText)),
  };
  console.log(
    `tapable waterfall, 10 promise taps + body: ${ns(object.base)}; with JSON.parse of the small text ${ns(text.base)}, of the edit's ${ns(edit.base)}`,
  );
  console.log(
    `dsh, 10 taps on each of 4 points + 3 guards: ${ns(object.ours)} with object args, ${ns(text.ours)} with small JSON text, ${ns(edit.ours)} with an edit's JSON text`,
  );

  // The breakdown: each row adds one stage to the row above; all rows share one interleaved run.
  // Every log keeps 64 events here: ten default logs would tax the collector for every row.
  const rows = [
    ['the bare body', async () => body(args)],
    ['core, no taps, object args', callsOf(host(small), args)],
    ['+ arguments as small JSON text', callsOf(host(small), argsText)],
    ['+ 10 pre-execute taps', callsOf(host(small, { pre: ten }), argsText)],
    ['+ 10 execute taps', callsOf(host(small, { pre: ten, execute: ten }), argsText)],
    ['+ 10 post-execute taps', callsOf(host(small, { pre: ten, execute: ten, post: ten }), argsText)],
    ['+ 10 result observers', callsOf(host(small, { pre: ten, execute: ten, post: ten, result: ten }), argsText)],
    ['+ 3 guards (the full composition)', callsOf(host(small, everything), argsText)],
    ["  the same with an edit's JSON text", callsOf(host(small, everything), editText)],
  ];
  const breakdown = await interleaved(
    rows.map(([, fn]) => fn),
    { ops: 4_000, rounds: 11 },
  );
  console.log('per stage (median per call; "adds" is the difference to the row above, so noise can make it negative):');
  rows.forEach(([label], i) => {
    const own = breakdown.medians[i];
    const added = i === 0 ? '' : `adds ${ns(own - breakdown.medians[i - 1]).padStart(9)}`;
    console.log(`  ${label.padEnd(44)} ${ns(own).padStart(9)}  ${added}`);
  });

  // The default log keeps 10,000 events: every one of them survives into the old generation.
  const log = await interleaved([tapableCall, callsOf(host({}, everything), argsText)], { rounds: 9 });
  console.log(
    `(the full composition with the default log: ${ns(log.medians[1])}, ${log.ratios[1].toFixed(2)}x tapable, which itself slows to ${ns(log.medians[0])} beside it)`,
  );

  // Agents pass a step signal (the user's stop button): what following it adds to a bare call.
  const empty = host({ retainEvents: 64 });
  const signalled = await interleaved([callsOf(empty, args), callsOf(empty, args, { signal: new AbortController().signal })], {
    rounds: 7,
  });
  console.log(
    `(a call with no taps under a step signal: ${ns(signalled.medians[1])}, ${signalled.ratios[1].toFixed(2)}x one without, ${ns(signalled.medians[0])})`,
  );

  const label = (sent, baseline) => `per-call pipeline, 10 taps x 4 points + 3 guards, ${sent}, vs tapable waterfall + ${baseline}`;
  const floorWhat = 'the same taps, schema check, frozen args and result and four frozen timed events, inline (bench/floor-pipeline.mjs)';
  const row = (sent, baseline, measured, floor) =>
    recordRatio({
      pkg: 'core',
      label: label(sent, baseline),
      ratio: measured.ratio,
      target: 2.5,
      spread: measured.spread,
      rounds: measured.rounds,
      floor: { value: floor.ratio, what: floorWhat },
    });
  return [
    row('object args', 'body', object, floors.object),
    row('small JSON text args', 'JSON.parse + body', text, floors.text),
    row("an edit's JSON text args", 'JSON.parse + body', edit, floors.edit),
  ].every(Boolean);
}
