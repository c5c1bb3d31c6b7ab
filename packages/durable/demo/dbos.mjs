// The DBOS half of the durable demo (run by demo/run.mjs): the same step on the DBOS binding.
// Starts a private PostgreSQL cluster (loopback only, temp dir, as the tests start it), a DBOS
// worker process (src/fixtures/dbos-worker.mjs: tool-bash, tool-fs) under executor id `demo`,
// and submits one step of three calls: a read, a bash call that blocks, another bash call. The
// worker is killed while the blocking call runs; a second worker launched under the same executor
// id recovers the step, whose results are printed: the read replayed from its checkpoint, the
// interrupted call TOOL_INTERRUPTED (not run again), the last call run once.
// The workers write the session's JSONL log (`logDir`); the demo keeps its folder and prints the
// `pnpm dsh log` command that shows it.
// Skipped with a note where PostgreSQL is not installed (apt-get install postgresql).
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSessionClient, submitStep } from '../dist/dbos/index.js';
import { sessionLogPath } from '../dist/index.js';
import { postgresStatus, startPostgres } from '../scripts/postgres-cluster.mjs';
import { collect, until } from '../scripts/processes.mjs';
import { logLines, resultLine } from './report.mjs';

const log = (text) => console.log(`[demo dbos] ${text}`);
const status = postgresStatus();
if (!status.ok) {
  log(`skipped: ${status.reason}`);
} else {
  const dir = await mkdtemp(join(tmpdir(), 'dsh-durable-demo-dbos-'));
  const effects = join(dir, 'effects.log');
  const logDir = join(dir, 'logs');
  const children = [];
  let postgres;
  let client;
  const startWorker = async (url) => {
    const worker = spawn(process.execPath, [fileURLToPath(new URL('../src/fixtures/dbos-worker.mjs', import.meta.url))], {
      env: { ...process.env, DATABASE_URL: url, WORK: dir, EFFECTS: effects, EXECUTOR_ID: 'demo', LOG_LEVEL: 'warn', LOG_DIR: logDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(worker);
    const output = collect(worker);
    await until('DBOS worker', async () => /^ready$/m.test(output()), worker, output);
    return worker;
  };
  try {
    postgres = await startPostgres();
    const url = postgres.url('dsh_demo');
    log(`PostgreSQL on 127.0.0.1:${postgres.port}, system database dsh_demo`);
    const first = await startWorker(url);
    log(`worker 1 (pid ${first.pid}, executor id demo) launched`);
    client = await createSessionClient({ systemDatabaseUrl: url, pollingIntervalMs: 50 });
    await writeFile(join(dir, 'notes.txt'), 'remember the milk\n');
    const pending = submitStep(client, 'demo-session', 'step-1', [
      { id: 'read-1', name: 'read', args: { file_path: join(dir, 'notes.txt') } },
      { id: 'deploy-1', name: 'bash', args: { command: `echo deploy started >> ${effects}; sleep 3600` } },
      { id: 'after-1', name: 'bash', args: { command: `echo after ran >> ${effects}` } },
    ]);
    await until('deploy started', async () => (await readFile(effects, 'utf8')).includes('deploy started'));
    log('deploy-1 is running: SIGKILL worker 1');
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    const second = await startWorker(url);
    log(`worker 2 (pid ${second.pid}) launched under the same executor id: it recovers the step from its checkpoints`);
    const { results } = await pending;
    for (const result of results) log(resultLine(result));
    log(`side effects: ${JSON.stringify((await readFile(effects, 'utf8')).trim().split('\n'))}`);
    for (const line of logLines(dir, sessionLogPath(logDir, 'demo-session'))) log(line);
  } finally {
    await client?.close();
    for (const child of children.reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await gone;
    }
    await postgres?.stop();
  }
}
