// The DBOS part of the dsh-durable bench (run by bench/run.mjs), printed as ratios against a baseline
// measured in the same run. Never fails; skipped with a note where PostgreSQL is not installed.
//   One bash call (`true`, not idempotent: a started marker and the body, two `DBOS.runStep`s) and
//   one fs read (idempotent: one `DBOS.runStep`) as a step of a DBOS session, against the same call
//   on the same kind of host without the engine. The overhead is divided by one engine round trip:
//   a step with no calls (enqueue -> queue dispatch -> workflow with its host binding -> result).
//   Queues and results are polled every 20 ms here (100 ms by default): a round trip is mostly
//   those polls, which is why the ratio, not the milliseconds, is what to compare.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSessionClient, submitStep } from '../dist/dbos/index.js';
import { postgresStatus, startPostgres } from '../scripts/postgres-cluster.mjs';
import { measure, ms, recordOverheads } from './measure.mjs';

const pollingMs = 20;

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
    const m = await measure(dir, (calls, id) => submitStep(client, 'bench', id('s'), calls));
    console.log(`dbos bash true: plain ${ms(m.plainBash)}, durable ${ms(m.durableBash)} (2 checkpoints: started marker + body)`);
    console.log(`dbos fs read:   plain ${ms(m.plainRead)}, durable ${ms(m.durableRead)} (1 checkpoint: body)`);
    console.log(`dbos round trip (empty step, ${pollingMs} ms polling): ${ms(m.roundTrip)}`);
    recordOverheads(m, { prefix: 'dbos: ', step: 'DBOS.runStep' });
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
