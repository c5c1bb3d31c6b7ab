// Demo: a dsh session on Restate, then on DBOS, survives a SIGKILL of its worker in the middle of
// a tool call.
//   node packages/durable/demo/run.mjs      (after `pnpm exec tsc -b packages/durable`)
// Starts restate-server (loopback only, temp data dir), a worker serving the session object with a
// real host (tool-bash, tool-fs; see src/fixtures/worker.mjs), and submits one step of three calls:
// a read (idempotent), a bash call that blocks, and another bash call. The worker is killed while
// the blocking call runs; a second worker takes over and the step's results are printed: the read
// replayed, the interrupted bash call TOOL_INTERRUPTED (not run again), the last call run once.
// The worker writes the session's JSONL log (`logDir`): one tool/call and one tool/result per call
// across the kill. The demo keeps its folder (the engine's data removed) and prints the
// `pnpm dsh log` command that shows the log.
// The same step on DBOS follows (demo/dbos.mjs; skipped with a note without PostgreSQL).
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sessionLogPath } from '../dist/index.js';
import { registerDeployment, submitStep } from '../dist/restate/index.js';
import { collect, freePort, startRestate, until } from '../scripts/restate-engine.mjs';
import { logLines, resultLine } from './report.mjs';

const dir = await mkdtemp(join(tmpdir(), 'dsh-durable-demo-'));
const effects = join(dir, 'effects.log');
const logDir = join(dir, 'logs');
const children = [];
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

async function startWorker(port) {
  const worker = spawn(process.execPath, [fileURLToPath(new URL('../src/fixtures/worker.mjs', import.meta.url))], {
    env: { ...process.env, WORKER_PORT: String(port), WORK: dir, EFFECTS: effects, LOG_DIR: logDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(worker);
  const output = collect(worker);
  await until('worker', async () => output().includes('listening'), worker, output);
  return worker;
}

const log = (text) => console.log(`[demo] ${text}`);
// The engine's data is the demo's scratch: removed at the end, unlike the session log.
const engineData = join(dir, 'restate-data');

try {
  const engine = await startRestate(engineData, { fastRetries: true });
  children.push(engine.child);
  log(`restate-server: ingress ${engine.ingressUrl}, admin ${engine.adminUrl}`);
  const port = await freePort();
  const first = await startWorker(port);
  await registerDeployment({ adminUrl: engine.adminUrl, workerUrl: `http://127.0.0.1:${port}` });
  log(`worker 1 (pid ${first.pid}) registered at http://127.0.0.1:${port}`);
  await writeFile(join(dir, 'notes.txt'), 'remember the milk\n');
  const pending = submitStep({ ingressUrl: engine.ingressUrl }, 'demo-session', [
    { id: 'read-1', name: 'read', args: { file_path: join(dir, 'notes.txt') } },
    { id: 'deploy-1', name: 'bash', args: { command: `echo deploy started >> ${effects}; sleep 3600` } },
    { id: 'after-1', name: 'bash', args: { command: `echo after ran >> ${effects}` } },
  ]);
  await until('deploy started', async () => (await readFile(effects, 'utf8')).includes('deploy started'));
  log('deploy-1 is running: SIGKILL worker 1');
  first.kill('SIGKILL');
  await new Promise((resolve) => first.once('exit', resolve));
  const second = await startWorker(port);
  log(`worker 2 (pid ${second.pid}) took over the same URL; the engine replays the session there`);
  const { results } = await pending;
  for (const result of results) log(resultLine(result));
  log(`side effects: ${JSON.stringify((await readFile(effects, 'utf8')).trim().split('\n'))}`);
  for (const line of logLines(dir, sessionLogPath(logDir, 'demo-session'))) log(line);
} finally {
  for (const child of children.reverse()) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await gone;
  }
  await rm(engineData, { recursive: true, force: true });
}

// The same step on the DBOS binding, on a private PostgreSQL (skipped without one).
await import('./dbos.mjs');
