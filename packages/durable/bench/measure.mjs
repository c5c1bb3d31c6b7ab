// The measuring part of the dsh-durable bench, the same for both engines (bench/run.mjs: Restate,
// bench/dbos.mjs: DBOS). One bash call (`true`, not idempotent: a started marker and the body) and
// one fs read (idempotent: the body) as a step of a durable session, against the same call on the
// same kind of host without the engine, and one engine round trip (a step with no calls). The five
// are interleaved, round after round, so that a busy machine slows them alike; medians are kept.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createHost } from '@deepseek-ai/dsh-core';
import { toolBash } from '@deepseek-ai/dsh-tool-bash';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { medianTimes } from '../../../scripts/bench/interleave.mjs';
import { recordRatio } from '../../../scripts/bench/report.mjs';

/** Milliseconds as printed by the bench. */
export const ms = (x) => `${x.toFixed(2)} ms`;

/**
 * Times the plain calls and the engine's steps.
 * @param {string} dir a scratch directory that the engine's worker may read and run in
 * @param {(calls: object[], id: (prefix: string) => string) => Promise<{ results: object[] }>} submit
 *   runs one step of the session `bench` on the engine; `id` hands out ids unique in this run
 * @returns {Promise<{ plainBash: number, plainRead: number, durableBash: number, durableRead: number, roundTrip: number }>}
 *   the medians in milliseconds
 */
export async function measure(dir, submit) {
  await writeFile(join(dir, 'small.txt'), 'hello\n');
  const plain = createHost({ session: 'plain', defaultDecision: 'allow' });
  await plain.use(toolBash({ cwd: dir }));
  await plain.use(toolFs({ roots: [dir], cwd: dir }));
  let n = 0;
  const id = (prefix) => {
    n += 1;
    return `${prefix}${n}`;
  };
  const bash = { name: 'bash', args: { command: 'true' } };
  const read = { name: 'read', args: { file_path: join(dir, 'small.txt') } };
  const fns = [
    () => plain.runStep({ calls: [{ id: id('p'), ...bash }] }),
    () => plain.runStep({ calls: [{ id: id('p'), ...read }] }),
    () => submit([{ id: id('d'), ...bash }], id),
    () => submit([{ id: id('d'), ...read }], id),
    () => submit([], id),
  ];
  const [plainBash, plainRead, durableBash, durableRead, roundTrip] = await medianTimes(fns);
  // Every measured call must have run its body: a call that failed validation would cost no step.
  for (const fn of fns.slice(0, 4)) {
    const { results } = await fn();
    if (results[0]?.outcome.status !== 'ok') throw new Error(`bench call failed: ${JSON.stringify(results[0]?.outcome)}`);
  }
  return { plainBash, plainRead, durableBash, durableRead, roundTrip };
}

/**
 * Records the two overheads in engine round trips: the idempotent call's (target 2: one for the
 * invocation, one for its single durable step) and the non-idempotent call's (target 3: one more).
 * @param {{ plainBash: number, plainRead: number, durableBash: number, durableRead: number, roundTrip: number }} medians
 * @param {{ prefix: string, step: string }} engine the labels' prefix and the name of the engine's durable step
 */
export function recordOverheads({ plainBash, plainRead, durableBash, durableRead, roundTrip }, { prefix, step }) {
  recordRatio({
    pkg: 'durable',
    label: `${prefix}idempotent call overhead / engine round trip`,
    ratio: (durableRead - plainRead) / roundTrip,
    target: 2,
    note: `1 ${step} per idempotent call`,
  });
  recordRatio({
    pkg: 'durable',
    label: `${prefix}non-idempotent call overhead / engine round trip`,
    ratio: (durableBash - plainBash) / roundTrip,
    target: 3,
    note: `2 ${step} per non-idempotent call (marker + body)`,
  });
}
