// The DBOS binding against a real, private PostgreSQL (scripts/postgres-cluster.mjs) and real
// worker processes (src/fixtures/dbos-worker.mjs). One worker is killed with SIGKILL while four
// sessions are in flight; a second worker launched under the same executor id recovers them.
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JsonValue, StepResult } from '@deepseek-ai/dsh-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresStatus } from '../../scripts/postgres-cluster.mjs';
import type { AnswerReceipt } from '../durable-approval.js';
import { DurableError, DurableErrorCode } from '../errors.js';
import { type DbosEngine, freePort, startDbosEngine, until, type WorkerProcess } from '../fixtures/dbos-engine.js';
import { killHard } from '../fixtures/processes.js';
import { approve } from './approve.js';
import { createSessionClient, type SessionClient, submitRun, submitStep } from './client.js';
import { workflowId } from './names.js';
import { recoverExecutor } from './recover-executor.js';
import { launchDbosWorker } from './worker.js';

const status = postgresStatus();
const why = status.ok ? '' : ` (skipped: ${status.reason}; DSH_REQUIRE_POSTGRES=1 fails instead)`;
if (!status.ok && !status.required) console.warn(`dsh-durable: the DBOS binding tests are skipped${why}`);

describe.runIf(!status.ok && status.required)('PostgreSQL for the DBOS tests', () => {
  it('is installed (CI must install the postgresql package)', () => {
    throw new Error(`DSH_REQUIRE_POSTGRES=1 but the DBOS tests cannot run: ${status.reason}`);
  });
});

describe.skipIf(!status.ok)(`the DBOS binding on a private Postgres${why}`, () => {
  let engine: DbosEngine;
  let client: SessionClient;
  let effects: string;
  const workers: WorkerProcess[] = [];

  async function lines(): Promise<string[]> {
    const text = await readFile(effects, 'utf8').catch(() => '');
    return text.split('\n').filter((line) => line !== '');
  }
  const count = async (line: string) => (await lines()).filter((l) => l === line).length;

  async function worker(env: Record<string, string>): Promise<WorkerProcess> {
    const child = await engine.startWorker({ EFFECTS: effects, ...env });
    workers.push(child);
    return child;
  }

  /** A bash call that logs `line` and then blocks until the test file ends (or its directory is gone). */
  const blocking = (line: string) =>
    `echo ${line} >> ${effects}; while [ -d ${engine.dir} ] && [ ! -e ${engine.dir}/release ]; do sleep 0.05; done`;

  beforeAll(async () => {
    engine = await startDbosEngine();
    effects = join(engine.dir, 'effects.log');
  });

  afterAll(async () => {
    if (engine !== undefined) await writeFile(join(engine.dir, 'release'), '').catch(() => {});
    await client?.close();
    for (const child of workers) await killHard(child);
    await engine?.stop();
  });

  describe('a worker killed with SIGKILL in the middle of four sessions', () => {
    const bash = (id: string, command: string) => ({ id, name: 'bash', args: { command } });
    let done: StepResult;
    let interrupted: Promise<StepResult>;
    let asked: Promise<StepResult>;
    let denied: Promise<StepResult>;
    let program: Promise<JsonValue>;
    let next: Promise<StepResult>;
    let denyReceipts: AnswerReceipt[];
    let askReceipt: AnswerReceipt;

    beforeAll(async () => {
      const first = await worker({ EXECUTOR_ID: 'kill', LOG_RESULTS: '1' });
      client = await createSessionClient({ systemDatabaseUrl: engine.url, pollingIntervalMs: 50 });
      done = await submitStep(client, 's-done', 'step-1', [bash('d1', `echo done >> ${effects}`)]);
      interrupted = submitStep(client, 's-bash', 'step-1', [bash('c1', blocking('started-c1'))]);
      asked = submitStep(client, 's-ask', 'step-1', [bash('a1', `echo approved >> ${effects} #ask`)]);
      denied = submitStep(client, 's-deny', 'step-1', [bash('n1', `echo denied-ran >> ${effects} #ask`)]);
      program = submitRun(client, 's-run', 'run-1', null);
      for (const promise of [interrupted, asked, denied, program]) promise.catch(() => {});
      await until(async () => {
        const all = await lines();
        return ['started-c1', 'asked a1', 'asked n1', 'model 2'].every((line) => all.includes(line));
      });
      // The session's next step, submitted while the first one holds the session on the worker about to die.
      next = submitStep(client, 's-bash', 'step-2', [bash('c2', `echo after >> ${effects}`)]);
      next.catch(() => {});
      denyReceipts = [await approve(client, 's-deny', 'n1', 'deny', 'not now'), await approve(client, 's-deny', 'n1', 'allow')];
      await killHard(first);
      await writeFile(join(engine.dir, 'model-go'), '');
      await worker({ EXECUTOR_ID: 'kill', LOG_RESULTS: '1' });
      askReceipt = await approve(client, 's-ask', 'a1', 'allow');
    });

    it('ends the bash call killed mid-body TOOL_INTERRUPTED on the next worker, without running it again', async () => {
      const result = await interrupted;
      expect(result.results).toHaveLength(1);
      expect(result.results[0]?.outcome).toMatchObject({
        status: 'error',
        error: { code: DurableErrorCode.TOOL_INTERRUPTED, data: { idempotencyKey: 's-bash:c1' } },
      });
      expect(await count('started-c1')).toBe(1);
    });

    it('honours an approval answered after the worker restarted, running the call once', async () => {
      expect(askReceipt.status).toMatch(/delivered|kept/);
      const result = await asked;
      expect(result.results.map((r) => [r.id, r.outcome.status])).toEqual([['a1', 'ok']]);
      expect(await count('approved')).toBe(1);
    });

    it('keeps a deny final across the restart: later answers change nothing', async () => {
      expect(denyReceipts[0]?.status).toMatch(/delivered|kept/);
      expect(denyReceipts[1]).toEqual({ status: 'already-answered' });
      const result = await denied;
      expect(result.results[0]?.outcome).toMatchObject({ status: 'denied', stage: 'approval' });
      expect(await approve(client, 's-deny', 'n1', 'allow')).toEqual({ status: 'already-answered' });
      expect(await count('denied-ran')).toBe(0);
    });

    it('resumes the program killed mid model turn, running no completed step twice', async () => {
      const result = (await program) as unknown as { text: string; results: StepResult['results'] };
      expect(result.text).toBe('all done');
      expect(result.results.map((r) => [r.id, r.outcome.status])).toEqual([['m1', 'ok']]);
      // Turn 1 and its bash call were checkpointed: not run again. Turn 2 was in flight: asked again.
      expect([await count('model 1'), await count('one'), await count('model 2')]).toEqual([1, 1, 2]);
    });

    it('has the second worker recover the killed worker’s workflows (same executor id)', async () => {
      await interrupted;
      const status = await client.dbos.getWorkflow(workflowId('dsh-session', 's-bash', 'step', 'step-1'));
      expect(status).toMatchObject({ status: 'SUCCESS', executorId: 'kill' });
      // Dispatched once by the first worker, and once more after the second one re-enqueued it.
      expect(status?.recoveryAttempts).toBe(2);
    });

    it('returns the first result when a step id is submitted again, without running it again', async () => {
      const again = await submitStep(client, 's-done', 'step-1', [bash('d1', `echo done >> ${effects}`)]);
      expect(again).toEqual(done);
      expect(done.results.map((r) => r.outcome.status)).toEqual(['ok']);
      expect(await count('done')).toBe(1);
    });

    it('runs the session’s next step only after the interrupted one ended on the second worker (one writer)', async () => {
      const result = await next;
      expect(result.results.map((r) => [r.id, r.outcome.status])).toEqual([['c2', 'ok']]);
      expect(await count('after')).toBe(1);
      // The interrupted step's call got its result (on the second worker) before the next step's call ran.
      // (DBOS's own timestamps cannot tell: a dequeue is stamped with its transaction's start time.)
      const all = await lines();
      expect(all.indexOf('result c1 error')).toBeGreaterThanOrEqual(0);
      expect(all.indexOf('result c1 error')).toBeLessThan(all.indexOf('after'));
    });
  });

  describe('bad input', () => {
    beforeAll(async () => {
      for (const child of workers) await killHard(child);
      // Another host configuration, whose factory also ignores the session it is given.
      await worker({ EXECUTOR_ID: 'other', HOST_ID: 'other-host', FORCE_SESSION: 'somebody-else' });
    });

    it('refuses a session bound to one host id on a worker with another', async () => {
      const error = await submitStep(client, 's-done', 'step-2', [{ id: 'h2', name: 'bash', args: { command: 'true' } }]).catch(
        (e: unknown) => e,
      );
      expect(DurableError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: DurableErrorCode.SESSION_HOST_MISMATCH });
      expect((error as Error).message).toContain('"test-host"');
    });

    it('refuses a host whose factory set another session id than the engine runs', async () => {
      const error = await submitStep(client, 's-fresh', 'step-1', [{ id: 'x1', name: 'bash', args: { command: 'true' } }]).catch(
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ code: DurableErrorCode.SESSION_ID_MISMATCH });
    });

    it('refuses malformed steps and answers before submitting anything', async () => {
      await expect(submitStep(client, 's-x', 'step-1', 'nope' as never)).rejects.toMatchObject({ code: DurableErrorCode.INVALID_INPUT });
      await expect(submitStep(client, '', 'step-1', [])).rejects.toMatchObject({ code: DurableErrorCode.INVALID_INPUT });
      await expect(submitRun(client, 's-x', '', null)).rejects.toMatchObject({ code: DurableErrorCode.INVALID_INPUT });
      await expect(approve(client, 's-ask', 'a1', 'maybe' as never)).rejects.toMatchObject({ code: DurableErrorCode.INVALID_INPUT });
      await expect(approve(client, 's-x', 'nobody', 'allow')).rejects.toMatchObject({ code: DurableErrorCode.INVALID_INPUT });
      const listed = await client.dbos.listWorkflows({ workflowIDs: [workflowId('dsh-session', 's-x', 'step', 'step-1')] });
      expect(listed).toEqual([]);
    });

    it('reports an unreachable Postgres as ENGINE_UNREACHABLE, to clients and workers', async () => {
      const closed = `postgresql://dsh@127.0.0.1:${await freePort()}/dsh_test`;
      await expect(createSessionClient({ systemDatabaseUrl: closed })).rejects.toMatchObject({ code: DurableErrorCode.ENGINE_UNREACHABLE });
      const noSuchDatabase = engine.url.replace(/\/dsh_test$/, '/no_such_database');
      await expect(createSessionClient({ systemDatabaseUrl: noSuchDatabase })).rejects.toMatchObject({
        code: DurableErrorCode.ENGINE_UNREACHABLE,
      });
      const definition = { name: 'unused', queueName: 'unused', answerQueueName: 'unused.answers' };
      await expect(launchDbosWorker({ systemDatabaseUrl: closed, sessions: [definition] })).rejects.toMatchObject({
        code: DurableErrorCode.ENGINE_UNREACHABLE,
      });
    });

    it('reports a database no worker has set up as ENGINE_ERROR', async () => {
      await expect(createSessionClient({ systemDatabaseUrl: engine.bareUrl })).rejects.toMatchObject({
        code: DurableErrorCode.ENGINE_ERROR,
      });
    });
  });

  describe('a worker that comes back under a new executor id', () => {
    beforeAll(async () => {
      for (const child of workers) await killHard(child);
    });

    it("gets the dead executor's session with recoverExecutor: the step ends, and the session's next step runs", async () => {
      const gone = await worker({ EXECUTOR_ID: 'gone' });
      // Run on its own (-t), this file has no client yet: the first describe opens it.
      client ??= await createSessionClient({ systemDatabaseUrl: engine.url, pollingIntervalMs: 50 });
      const stranded = submitStep(client, 's-gone', 'step-1', [{ id: 'g1', name: 'bash', args: { command: blocking('started-g1') } }]);
      stranded.catch(() => {});
      await until(async () => (await lines()).includes('started-g1'));
      await killHard(gone);
      const next = submitStep(client, 's-gone', 'step-2', [{ id: 'g2', name: 'bash', args: { command: `echo after-g1 >> ${effects}` } }]);
      next.catch(() => {});
      await worker({ EXECUTOR_ID: 'renamed' });
      expect(await recoverExecutor(client, 'gone')).toContain(workflowId('dsh-session', 's-gone', 'step', 'step-1'));
      expect((await stranded).results[0]?.outcome).toMatchObject({ status: 'error', error: { code: DurableErrorCode.TOOL_INTERRUPTED } });
      expect((await next).results[0]?.outcome.status).toBe('ok');
      expect(await count('started-g1')).toBe(1);
      expect(await count('after-g1')).toBe(1);
      expect(await recoverExecutor(client, 'gone')).toEqual([]);
    });
  });

  describe('what the processes print', () => {
    it('prints no pg DeprecationWarning from any worker of this file, nor from a client process', async () => {
      await worker({ EXECUTOR_ID: 'quiet' });
      const clientScript = fileURLToPath(new URL('../fixtures/dbos-client.mjs', import.meta.url));
      const client = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) =>
        execFile(process.execPath, [clientScript], { env: { ...process.env, DATABASE_URL: engine.url } }, (error, stdout, stderr) =>
          error === null ? resolve({ stdout, stderr }) : reject(new Error(`${error.message}: ${stdout}${stderr}`)),
        ),
      );
      expect(client.stdout).toBe('closed\n');
      expect(client.stderr).not.toContain('DeprecationWarning');
      expect(workers.length).toBeGreaterThan(0);
      for (const child of workers) expect(child.output()).not.toContain('DeprecationWarning');
    });
  });
});
