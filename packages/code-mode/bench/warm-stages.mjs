// Where a warm start's time goes, stage by stage, measured inside real runs: the package's run trace
// (src/internal/run-trace.ts) marks each stage on the host and, for a traced start, in the worker, on one
// clock (performance.timeOrigin + now), so the two thread crossings are measured too.
import { median } from '../../../scripts/bench/interleave.mjs';
import { runTrace, traceNow } from '../dist/internal/run-trace.js';

/** The stages of a warm start in order: [label, from mark, to mark]; `step` and `end` are the bench's own. */
export const WARM_STAGES = [
  ["pipeline, before run_code's execute", 'step', 'execute'],
  ['code mode: the run set up, the ready worker taken', 'execute', 'taken'],
  ['attach the run, start the CPU budget, post the start', 'taken', 'posted'],
  ['hand-off to the worker (postMessage, a thread wake-up)', 'posted', 'received'],
  ['compile the program in the prepared context', 'received', 'compiled'],
  ['eval: run it and its promise jobs', 'compiled', 'ran'],
  ['result: collect the calls, encode the end', 'ran', 'reported'],
  ['report back to the host (a thread wake-up)', 'reported', 'report'],
  ['teardown: stop the queue, give the worker back, the output', 'report', 'released'],
  ['pipeline, after execute (result event, step end)', 'released', 'end'],
];

/**
 * Runs `step` (one warm start, awaited after the pool is settled by `settle`) `runs` times with the trace
 * on, and returns the median of each stage in ms, and the median of the whole.
 * @param {() => Promise<unknown>} settle
 * @param {() => Promise<unknown>} step
 */
export async function warmStages(settle, step, runs = 41) {
  const durations = WARM_STAGES.map(() => []);
  const totals = [];
  let marks;
  runTrace.listener = (stage, at) => marks?.set(stage, at);
  try {
    for (let i = 0; i < runs; i += 1) {
      await settle();
      marks = new Map([['step', traceNow()]]);
      await step();
      marks.set('end', traceNow());
      const missing = WARM_STAGES.find(([, from, to]) => !marks.has(from) || !marks.has(to));
      if (missing !== undefined) throw new Error(`a traced run lacks the marks of "${missing[0]}": ${[...marks.keys()].join(', ')}`);
      for (const [j, [, from, to]] of WARM_STAGES.entries()) durations[j].push(marks.get(to) - marks.get(from));
      totals.push(marks.get('end') - marks.get('step'));
    }
  } finally {
    runTrace.listener = undefined;
    marks = undefined;
  }
  return { stages: WARM_STAGES.map(([label], j) => ({ label, ms: median(durations[j]) })), total: median(totals) };
}
