// Benchmark of dsh-durable, printed as ratios against a baseline measured in the same run. Never fails.
//   One bash call (`true`, not idempotent: a started marker and the body, two `ctx.run`s) and one
//   fs read (idempotent: one `ctx.run`) as a step of a Restate session, against the same call on
//   the same kind of host without the engine. The overhead is divided by one engine round trip
//   (a step with no calls: ingress -> server -> worker -> back, no journal writes of ours).
//   Target: the overhead of the idempotent call at most 2 round trips (one for the invocation,
//   one for its single journal write); the bash call's is printed beside it (one more write).
//   The same calls on the DBOS binding follow (bench/dbos.mjs).
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost } from '@deepseek-ai/dsh-core';
import { toolBash } from '@deepseek-ai/dsh-tool-bash';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { recordRatio } from '../../../scripts/bench/report.mjs';
import { registerDeployment, submitStep } from '../dist/restate/index.js';
import { freePort, startRestate, until } from '../scripts/restate-engine.mjs';

const rounds = 15;
const warmup = 3;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${x.toFixed(2)} ms`;

const dir = await mkdtemp(join(tmpdir(), 'dsh-durable-bench-'));
const workerPort = await freePort();
const children = [];
const stop = async () => {
  for (const child of children.reverse()) if (child.exitCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
};
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});
try {
  const engine = await startRestate(dir);
  children.push(engine.child);
  const worker = spawn(process.execPath, [fileURLToPath(new URL('../src/fixtures/worker.mjs', import.meta.url))], {
    env: { ...process.env, WORKER_PORT: String(workerPort), WORK: dir, EFFECTS: join(dir, 'effects.log') },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  children.push(worker);
  let out = '';
  worker.stdout.on('data', (c) => {
    out += c;
  });
  await until('worker', async () => out.includes('listening'), worker);
  await registerDeployment({ adminUrl: engine.adminUrl, workerUrl: `http://127.0.0.1:${workerPort}` });
  await writeFile(join(dir, 'small.txt'), 'hello\n');

  const plain = createHost({ session: 'plain', defaultDecision: 'allow' });
  await plain.use(toolBash({ cwd: dir }));
  await plain.use(toolFs({ roots: [dir], cwd: dir }));
  const { ingressUrl } = engine;
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
    () => submitStep({ ingressUrl }, 'bench', [{ id: id('d'), ...bash }]),
    () => submitStep({ ingressUrl }, 'bench', [{ id: id('d'), ...read }]),
    () => submitStep({ ingressUrl }, 'bench', []),
  ];
  for (let i = 0; i < warmup; i += 1) for (const fn of fns) await fn();
  const times = fns.map(() => []);
  for (let i = 0; i < rounds; i += 1) {
    for (const [j, fn] of fns.entries()) {
      const start = performance.now();
      await fn();
      times[j].push(performance.now() - start);
    }
  }
  // Every measured call must have run its body: a call that failed validation would cost no step.
  const check = await Promise.all([fns[0](), fns[1](), fns[2](), fns[3]()]);
  for (const { results } of check) {
    if (results[0]?.outcome.status !== 'ok') throw new Error(`bench call failed: ${JSON.stringify(results[0]?.outcome)}`);
  }
  const [plainBash, plainRead, durableBash, durableRead, roundTrip] = times.map(median);
  console.log(`bash true: plain ${ms(plainBash)}, durable ${ms(durableBash)} (2 journal entries: started marker + body)`);
  console.log(`fs read:   plain ${ms(plainRead)}, durable ${ms(durableRead)} (1 journal entry: body)`);
  console.log(`engine round trip (empty step): ${ms(roundTrip)}`);
  recordRatio({
    pkg: 'durable',
    label: 'idempotent call overhead / engine round trip',
    ratio: (durableRead - plainRead) / roundTrip,
    target: 2,
    note: '1 ctx.run per idempotent call',
  });
  recordRatio({
    pkg: 'durable',
    label: 'non-idempotent call overhead / engine round trip',
    ratio: (durableBash - plainBash) / roundTrip,
    target: 3,
    note: '2 ctx.run per non-idempotent call (marker + body)',
  });
} finally {
  await stop();
}

// The same calls on the DBOS binding, against its own baseline (skipped without PostgreSQL).
await import('./dbos.mjs');
