// `dsh inbox --durable restate|dbos` in a real browser: a real restate-server or a private
// PostgreSQL, real worker processes of the durable package (its test workers, with `logDir`) killed
// with SIGKILL, the inbox serving the workers' log folder and answering through the engine, Chromium
// clicking the answer. The DBOS half needs PostgreSQL (skipped without it, as durable's tests are).
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSessionLog } from '@deepseek-ai/dsh-core';
import { sessionLogPath } from '@deepseek-ai/dsh-durable';
import { createSessionClient, type SessionClient, submitStep as submitDbosStep } from '@deepseek-ai/dsh-durable/dbos';
import { registerDeployment, submitStep } from '@deepseek-ai/dsh-durable/restate/client';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The durable package's starter of the registry's restate-server (every listener on 127.0.0.1) and its process helpers.
import { postgresStatus, startPostgres } from '../../durable/scripts/postgres-cluster.mjs';
import { collect, freePort, startRestate, until } from '../../durable/scripts/restate-engine.mjs';
import { type InboxCommandOptions, runInbox } from './commands/inbox.js';
import { scratchDir } from './fixtures/run-dsh.js';
import { styleFor } from './render/style.js';

const fixtures = new URL('../../durable/src/fixtures/', import.meta.url);
const dir = scratchDir();
const effects = join(dir, 'effects.log');
const children: ChildProcess[] = [];
let browser: Browser;
const inboxes: { stop: AbortController; done: Promise<unknown> }[] = [];

/** Starts a durable test worker (`worker.mjs` or `dbos-worker.mjs`) and waits until it says `ready`. */
async function startWorker(script: string, ready: string, env: Record<string, string>): Promise<ChildProcess> {
  const worker = spawn(process.execPath, [fileURLToPath(new URL(script, fixtures))], {
    env: { ...process.env, WORK: dir, EFFECTS: effects, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(worker);
  const output = collect(worker);
  await until(script, async () => output().includes(ready), worker, output);
  return worker;
}

async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await gone;
}

/** Polls the log until `call` has an event of `type`; fails with the step's own error if the step fails first. */
async function logged(logDir: string, session: string, type: string, call: string, pending: Promise<unknown>): Promise<void> {
  let failure: unknown;
  pending.catch((error: unknown) => {
    failure = error ?? new Error('the step failed');
  });
  for (let i = 0; i < 2400; i++) {
    if (failure !== undefined) throw new Error(`waiting for ${type} of ${call}: the step failed first`, { cause: failure });
    const text = await readFile(sessionLogPath(logDir, session), 'utf8').catch(() => '');
    if (text.split('\n').some((l) => l.includes(`"type":"${type}"`) && l.includes(`"call":"${call}"`))) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`waiting for ${type} of ${call}: not logged after 2400 polls`);
}

/** `dsh inbox` in this process, as the CLI runs it; resolves with the URL it prints. */
async function serveInbox(options: InboxCommandOptions): Promise<string> {
  const text = { write: (_chunk: string) => true };
  const io = { stdout: text, stderr: text, style: styleFor(false), isTTY: false, env: { ...process.env }, cwd: dir };
  const stop = new AbortController();
  let listening: (url: string) => void = () => {};
  const ready = new Promise<string>((resolve) => {
    listening = resolve;
  });
  const done = runInbox(io, { ...options, signal: stop.signal, onListening: listening });
  done.catch(() => {});
  inboxes.push({ stop, done });
  return Promise.race([ready, done.then(() => Promise.reject(new Error('the inbox ended before it served')))]);
}

/**
 * Opens the inbox, finds the call waiting in `session`, clicks "Allow once", and checks that a
 * second answer from the page's origin is refused: the first one stands.
 */
async function answerInPage(url: string, session: string, call: string, command: string, result: Promise<unknown>): Promise<void> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(url);
  await page.click(`[data-session="${session}"]`);
  await page.locator(`[data-call="${call}"].waiting`).waitFor();
  await expect(page.locator(`[data-call="${call}"] .command`).textContent()).resolves.toBe(`$ ${command}`);
  await page.locator(`[data-call="${call}"] [data-action="allow-once"]`).click();
  await result;
  await page.locator(`[data-call="${call}"] .st-ok`).waitFor();
  const again = (await page.evaluate(
    `fetch('/api/sessions/${session}/calls/${call}/answer', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ decision: 'deny' }) }).then(async (r) => ({ status: r.status, body: await r.json() }))`,
  )) as { status: number; body: { error: { code: string } } };
  expect([again.status, again.body.error.code]).toEqual([409, 'INBOX_ALREADY_ANSWERED']);
  await page.close();
}

/** The call ran once, and the log holds it once: one call, one request, one answer, one result. */
async function expectRanOnce(logDir: string, session: string, call: string, line: string): Promise<void> {
  expect((await readFile(effects, 'utf8')).split('\n').filter((l) => l === line)).toHaveLength(1);
  const { events, unknownOutcomes } = await loadSessionLog(sessionLogPath(logDir, session));
  expect(unknownOutcomes).toEqual([]);
  const count = (type: string) => events.filter((e) => e.type === type && e.call === call).length;
  expect(['tool/call', 'approval/request', 'approval/answer', 'tool/result'].map(count)).toEqual([1, 1, 1, 1]);
}

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking'],
  });
});

afterAll(async () => {
  await browser?.close();
  for (const inbox of inboxes) {
    inbox.stop.abort();
    await inbox.done.catch(() => {});
  }
  for (const child of children.reverse()) await killHard(child);
  const { rmSync } = await import('node:fs');
  rmSync(dir, { recursive: true, force: true });
});

describe('dsh inbox --durable restate', () => {
  it('shows the waiting call of a session whose worker was killed and restarted; the page answers it, the call runs once', async () => {
    const engine = await startRestate(join(dir, 'restate'), { fastRetries: true });
    children.push(engine.child);
    const logDir = join(dir, 'restate-logs');
    const env = { WORKER_PORT: String(await freePort()), LOG_DIR: logDir };
    const first = await startWorker('worker.mjs', 'listening', env);
    await registerDeployment({ adminUrl: engine.adminUrl, workerUrl: `http://127.0.0.1:${env.WORKER_PORT}` });
    const url = await serveInbox({ logs: logDir, durable: { durable: 'restate', ingress: engine.ingressUrl } });

    const command = `echo ran-r1 >> ${effects} #ask`;
    const pending = submitStep({ ingressUrl: engine.ingressUrl }, 'durable-r', [{ id: 'r1', name: 'bash', args: { command } }]);
    await logged(logDir, 'durable-r', 'approval/request', 'r1', pending);
    await killHard(first);
    await startWorker('worker.mjs', 'listening', env);

    await answerInPage(url, 'durable-r', 'r1', command, pending);
    expect((await pending).results[0]?.outcome.status).toBe('ok');
    await expectRanOnce(logDir, 'durable-r', 'r1', 'ran-r1');
  });
});

const postgres = postgresStatus();

describe.skipIf(!postgres.ok)(`dsh inbox --durable dbos${postgres.ok ? '' : ` (skipped: ${postgres.reason})`}`, () => {
  let client: SessionClient | undefined;
  let cluster: Awaited<ReturnType<typeof startPostgres>> | undefined;
  afterAll(async () => {
    await client?.close();
    for (const child of children) await killHard(child);
    await cluster?.stop();
  });

  it('shows the waiting call of a session whose worker was killed and restarted; the page answers it, the call runs once', async () => {
    cluster = await startPostgres();
    const logDir = join(dir, 'dbos-logs');
    const database = cluster.url('dsh_inbox');
    const env = { DATABASE_URL: database, EXECUTOR_ID: 'inbox', LOG_DIR: logDir, LOG_LEVEL: 'warn' };
    const first = await startWorker('dbos-worker.mjs', 'ready', env);
    client = await createSessionClient({ systemDatabaseUrl: database, pollingIntervalMs: 50 });
    const url = await serveInbox({ logs: logDir, durable: { durable: 'dbos', dbos: database } });

    const command = `echo ran-d1 >> ${effects} #ask`;
    const pending = submitDbosStep(client, 'durable-d', 'step-1', [{ id: 'd1', name: 'bash', args: { command } }]);
    await logged(logDir, 'durable-d', 'approval/request', 'd1', pending);
    await killHard(first);
    await startWorker('dbos-worker.mjs', 'ready', env);

    await answerInPage(url, 'durable-d', 'd1', command, pending);
    expect((await pending).results[0]?.outcome.status).toBe('ok');
    await expectRanOnce(logDir, 'durable-d', 'd1', 'ran-d1');
  });
});
