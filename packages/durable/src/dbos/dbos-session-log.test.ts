// The session log of a DBOS-backed session (`logDir`) across a SIGKILL of its worker: a private
// PostgreSQL (scripts/postgres-cluster.mjs) and real worker processes (fixtures/dbos-worker.mjs);
// the second worker recovers the first one's workflows under the same executor id.
import { join } from 'node:path';
import type { StepResult } from '@deepseek-ai/dsh-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { postgresStatus } from '../../scripts/postgres-cluster.mjs';
import { sessionLogPath } from '../durable-session-log.js';
import { DurableErrorCode } from '../errors.js';
import { type DbosEngine, startDbosEngine, type WorkerProcess } from '../fixtures/dbos-engine.js';
import { killHard } from '../fixtures/processes.js';
import { countOf, expectOneCallAndResultEach, fileHasLine, logHas, waitFor } from '../fixtures/session-log-checks.js';
import { approve } from './approve.js';
import { createSessionClient, type SessionClient, submitStep } from './client.js';

const status = postgresStatus();
const why = status.ok ? '' : ` (skipped: ${status.reason}; DSH_REQUIRE_POSTGRES=1 fails instead)`;

describe.skipIf(!status.ok)(`the session log of a DBOS session whose worker is killed${why}`, () => {
  let engine: DbosEngine;
  let client: SessionClient;
  let logDir: string;
  const workers: WorkerProcess[] = [];
  let interrupted: Promise<StepResult>;
  let asked: Promise<StepResult>;

  async function worker(): Promise<WorkerProcess> {
    const child = await engine.startWorker({ EFFECTS: join(engine.dir, 'effects.log'), EXECUTOR_ID: 'logged', LOG_DIR: logDir });
    workers.push(child);
    return child;
  }

  beforeAll(async () => {
    engine = await startDbosEngine();
    logDir = join(engine.dir, 'logs');
    const first = await worker();
    client = await createSessionClient({ systemDatabaseUrl: engine.url, pollingIntervalMs: 50 });
    await submitStep(client, 'log-kill', 'step-1', [{ id: 'k0', name: 'bash', args: { command: 'echo before' } }]);
    // The body writes an effect first: killed only once the body surely runs (a kill before it would
    // leave a call that never started, which the next worker runs again: this loop, for good).
    const command = `echo started-k2 >> ${join(engine.dir, 'effects.log')}; while [ -d ${engine.dir} ]; do sleep 0.05; done`;
    interrupted = submitStep(client, 'log-kill', 'step-2', [
      { id: 'k1', name: 'read', args: { path: 'effects.log' } },
      { id: 'k2', name: 'bash', args: { command } },
    ]);
    asked = submitStep(client, 'log-ask', 'step-1', [{ id: 'a1', name: 'bash', args: { command: 'echo ran-a1 #ask' } }]);
    for (const pending of [interrupted, asked]) pending.catch(() => {});
    await waitFor('the bash call is logged', () => logHas(sessionLogPath(logDir, 'log-kill'), 'tool/call', 'k2'), interrupted);
    await waitFor('the bash body runs', () => fileHasLine(join(engine.dir, 'effects.log'), 'started-k2'), interrupted);
    await waitFor('the approval is logged', () => logHas(sessionLogPath(logDir, 'log-ask'), 'approval/request', 'a1'), asked);
    await killHard(first);
    await worker();
  });

  // A failed test prints the engine's view: each workflow's status, queue and executor, and what the
  // workers printed (so a wait that never ends in CI names the workflow it waited on).
  afterEach(async ({ task }) => {
    if (task.result?.state !== 'fail') return;
    const flows = await client.dbos.listWorkflows({ loadInput: false, loadOutput: false }).catch((error) => [String(error)]);
    const rows = flows.map((f) =>
      typeof f === 'string' ? f : `${f.workflowID} ${f.status} queue=${f.queueName} executor=${f.executorId}`,
    );
    console.error(`DBOS workflows after "${task.name}":\n${rows.join('\n')}`);
    for (const child of workers) console.error(`worker ${child.pid} output:\n${child.output()}`);
  });

  afterAll(async () => {
    await client?.close();
    for (const child of workers) await killHard(child);
    await engine?.stop();
  });

  it('holds one tool/call and one tool/result per call when the worker dies mid-body', async () => {
    const step = await interrupted;
    expect(step.results[1]?.outcome).toMatchObject({ status: 'error', error: { code: DurableErrorCode.TOOL_INTERRUPTED } });
    // The session goes on after the recovery, and its next step continues the same file.
    const next = await submitStep(client, 'log-kill', 'step-3', [{ id: 'k3', name: 'bash', args: { command: 'echo after' } }]);
    expect(next.results[0]?.outcome.status).toBe('ok');
    await expectOneCallAndResultEach(sessionLogPath(logDir, 'log-kill'), ['k0', 'k1', 'k2', 'k3']);
  });

  it('logs an approval asked before the kill and answered after it once, with the call run once', async () => {
    expect((await approve(client, 'log-ask', 'a1', 'allow')).status).toMatch(/delivered|kept/);
    const step = await asked;
    expect(step.results[0]?.outcome).toMatchObject({ status: 'ok', output: { stdout: 'ran-a1\n' } });
    const events = await expectOneCallAndResultEach(sessionLogPath(logDir, 'log-ask'), ['a1']);
    expect([countOf(events, 'approval/request', 'a1'), countOf(events, 'approval/answer', 'a1')]).toEqual([1, 1]);
  });
});
