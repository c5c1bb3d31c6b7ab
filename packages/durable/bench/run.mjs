// Benchmark of dsh-durable, printed as ratios against a baseline measured in the same run. Never fails.
//   One bash call (`true`, not idempotent: a started marker and the body, two `ctx.run`s) and one
//   fs read (idempotent: one `ctx.run`) as a step of a Restate session, against the same call on
//   the same kind of host without the engine. The overhead is divided by one engine round trip
//   (a step with no calls: ingress -> server -> worker -> back, no journal writes of ours).
//   Target: the overhead of the idempotent call at most 2 round trips (one for the invocation,
//   one for its single journal write); the bash call's is printed beside it (one more write).
//   The same calls on the DBOS binding follow (bench/dbos.mjs).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { registerDeployment, submitStep } from '../dist/restate/index.js';
import { freePort, startRestate, until } from '../scripts/restate-engine.mjs';
import { measure, ms, recordOverheads } from './measure.mjs';

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
  const { ingressUrl } = engine;
  const m = await measure(dir, (calls) => submitStep({ ingressUrl }, 'bench', calls));
  console.log(`bash true: plain ${ms(m.plainBash)}, durable ${ms(m.durableBash)} (2 journal entries: started marker + body)`);
  console.log(`fs read:   plain ${ms(m.plainRead)}, durable ${ms(m.durableRead)} (1 journal entry: body)`);
  console.log(`engine round trip (empty step): ${ms(m.roundTrip)}`);
  recordOverheads(m, { prefix: '', step: 'ctx.run' });
} finally {
  await stop();
}

// The same calls on the DBOS binding, against its own baseline (skipped without PostgreSQL).
await import('./dbos.mjs');
