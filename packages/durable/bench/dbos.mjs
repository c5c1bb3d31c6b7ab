// The DBOS part of the dsh-durable bench (run by bench/run.mjs), printed as ratios against a baseline
// measured in the same run. Never fails; skipped with a note where PostgreSQL is not installed.
//   One bash call (`true`, not idempotent: a started marker and the body, two `DBOS.runStep`s) and
//   one fs read (idempotent: one `DBOS.runStep`) as a step of a DBOS session, against the same call
//   on the same kind of host without the engine. The overhead is divided by one engine round trip:
//   a step with no calls (enqueue -> queue dispatch -> workflow with its host binding -> result).
//   Queues and results are polled every 20 ms here (100 ms by default): a round trip is mostly
//   those polls, which is why the ratio, not the milliseconds, is what to compare.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost } from '@deepseek-ai/dsh-core';
import { toolBash } from '@deepseek-ai/dsh-tool-bash';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { recordRatio } from '../../../scripts/bench/report.mjs';
import { createSessionClient, submitStep } from '../dist/dbos/index.js';
import { postgresStatus, startPostgres } from '../scripts/postgres-cluster.mjs';

const rounds = 15;
const warmup = 3;
const pollingMs = 20;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${x.toFixed(2)} ms`;

const status = postgresStatus();
if (!status.ok) {
  console.log(`dbos: skipped (${status.reason})`);
} else {
  const dir = await mkdtemp(join(tmpdir(), 'dsh-durable-bench-dbos-'));
  let postgres;
  let worker;
  let client;
  try {
    postgres = await startPostgres();
    const url = postgres.url('dsh_bench');
    worker = spawn(process.execPath, [fileURLToPath(new URL('../src/fixtures/dbos-worker.mjs', import.meta.url))], {
      env: {
        ...process.env,
        DATABASE_URL: url,
        WORK: dir,
        EFFECTS: join(dir, 'effects.log'),
        POLLING_MS: String(pollingMs),
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    worker.stdout.on('data', (c) => {
      out += c;
    });
    while (!/^(ready|failed.*)$/m.test(out)) {
      if (worker.exitCode !== null) throw new Error(`the DBOS worker exited: ${out}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (!/^ready$/m.test(out)) throw new Error(`the DBOS worker did not launch: ${out}`);
    client = await createSessionClient({ systemDatabaseUrl: url, pollingIntervalMs: pollingMs });
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
      () => submitStep(client, 'bench', id('s'), [{ id: id('d'), ...bash }]),
      () => submitStep(client, 'bench', id('s'), [{ id: id('d'), ...read }]),
      () => submitStep(client, 'bench', id('s'), []),
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
    for (const fn of fns.slice(0, 4)) {
      const { results } = await fn();
      if (results[0]?.outcome.status !== 'ok') throw new Error(`bench call failed: ${JSON.stringify(results[0]?.outcome)}`);
    }
    const [plainBash, plainRead, durableBash, durableRead, roundTrip] = times.map(median);
    console.log(`dbos bash true: plain ${ms(plainBash)}, durable ${ms(durableBash)} (2 checkpoints: started marker + body)`);
    console.log(`dbos fs read:   plain ${ms(plainRead)}, durable ${ms(durableRead)} (1 checkpoint: body)`);
    console.log(`dbos round trip (empty step, ${pollingMs} ms polling): ${ms(roundTrip)}`);
    recordRatio({
      pkg: 'durable',
      label: 'dbos: idempotent call overhead / engine round trip',
      ratio: (durableRead - plainRead) / roundTrip,
      target: 2,
      note: '1 DBOS.runStep per idempotent call',
    });
    recordRatio({
      pkg: 'durable',
      label: 'dbos: non-idempotent call overhead / engine round trip',
      ratio: (durableBash - plainBash) / roundTrip,
      target: 3,
      note: '2 DBOS.runStep per non-idempotent call (marker + body)',
    });
  } finally {
    await client?.close();
    if (worker !== undefined && worker.exitCode === null) {
      const gone = new Promise((resolve) => worker.once('exit', resolve));
      worker.kill('SIGKILL');
      await gone;
    }
    await postgres?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
