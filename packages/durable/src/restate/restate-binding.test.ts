import type { ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StepResult } from '@deepseek-ai/dsh-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DurableError, DurableErrorCode } from '../errors.js';
import { type Engine, freePort, startEngine } from '../fixtures/engine.js';
import { killHard } from '../fixtures/processes.js';
import { approve, registerDeployment, submitRun, submitStep } from './client.js';

let engine: Engine;
let port: number;
let workers: ChildProcess[] = [];
let effects: string;
let test = 0;

async function lines(): Promise<string[]> {
  const text = await readFile(effects, 'utf8').catch(() => '');
  return text.split('\n').filter((line) => line !== '');
}

/**
 * Waits until the effects file holds `line`. `pending` is the submission that should write it: when
 * it ends first (an engine error, say) this fails with its outcome instead of waiting for the test
 * timeout. The test timeout is the only hang bound.
 */
async function untilLine(line: string, pending: Promise<unknown>): Promise<void> {
  let ended: { error: unknown } | { value: unknown } | undefined;
  pending.then(
    (value) => {
      ended = { value };
    },
    (error: unknown) => {
      ended = { error };
    },
  );
  while (!(await lines()).includes(line)) {
    if (ended !== undefined && !(await lines()).includes(line)) {
      if ('error' in ended) throw ended.error;
      throw new Error(`the submission ended without "${line}" in the effects: ${JSON.stringify(ended.value)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function worker(env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = await engine.startWorker(port, { WORK: engine.dir, EFFECTS: effects, ...env });
  workers.push(child);
  return child;
}

function session(): string {
  test += 1;
  effects = join(engine.dir, `effects-${test}.log`);
  return `session-${test}`;
}

beforeAll(async () => {
  engine = await startEngine();
  port = await freePort();
  const first = await engine.startWorker(port, { WORK: engine.dir, EFFECTS: join(engine.dir, 'unused.log') });
  await registerDeployment({ adminUrl: engine.adminUrl, workerUrl: `http://127.0.0.1:${port}` });
  await killHard(first);
});

afterEach(async ({ task }) => {
  // A stuck or failed test says what the engine was doing, before its workers are gone.
  if (task.result?.state === 'fail') console.error(`engine state after "${task.name}":\n${await engine.report()}`);
  for (const child of workers) await killHard(child);
  workers = [];
});

afterAll(async () => {
  await engine?.stop();
});

describe('the Restate binding under SIGKILL', () => {
  it('ends a bash call killed mid-body TOOL_INTERRUPTED on the next worker, without running it again', async () => {
    const id = session();
    const first = await worker();
    const command = `echo started >> ${effects}; while [ ! -e ${engine.dir}/never ]; do sleep 0.05; done`;
    const pending = submitStep({ ingressUrl: engine.ingressUrl }, id, [{ id: 'c1', name: 'bash', args: { command } }]);
    await untilLine('started', pending);
    await killHard(first);
    await worker();
    const result = await pending;
    expect(result.results).toHaveLength(1);
    expect(result.results[0]?.outcome).toMatchObject({
      status: 'error',
      error: { code: DurableErrorCode.TOOL_INTERRUPTED, data: { idempotencyKey: `${id}:c1` } },
    });
    expect(await lines()).toEqual(['started']);
  });

  it('runs an idempotent call killed mid-body again on the next worker', async () => {
    const id = session();
    const first = await worker({ IDEMPOTENT: 'bash' });
    const command = `echo started >> ${effects}; while [ ! -e ${engine.dir}/go-${id} ]; do sleep 0.05; done; echo finished`;
    const pending = submitStep({ ingressUrl: engine.ingressUrl }, id, [{ id: 'c1', name: 'bash', args: { command } }]);
    await untilLine('started', pending);
    await killHard(first);
    await writeFile(join(engine.dir, `go-${id}`), '');
    await worker({ IDEMPOTENT: 'bash' });
    const result = await pending;
    expect(result.results).toHaveLength(1);
    expect(result.results[0]?.outcome).toMatchObject({ status: 'ok', output: { stdout: 'finished\n' } });
    expect(await lines()).toEqual(['started', 'started']);
  });

  it('resumes a session killed mid model turn on the next worker, running no completed step twice', async () => {
    const id = session();
    const first = await worker();
    const pending = submitRun({ ingressUrl: engine.ingressUrl }, id, null);
    await untilLine('model 2', pending);
    await killHard(first);
    await writeFile(join(engine.dir, 'model-go'), '');
    await worker();
    const result = (await pending) as unknown as { text: string; results: StepResult['results'] };
    expect(result.text).toBe('all done');
    expect(result.results.map((r) => [r.id, r.outcome.status])).toEqual([['m1', 'ok']]);
    // Turn 1 and its bash call were journaled: not run again. Turn 2 was in flight: asked again.
    expect(await lines()).toEqual(['model 1', 'one', 'model 2', 'model 2']);
  });
});

describe('approvals as awakeables', () => {
  it('honours an approval answered after the worker restarted', async () => {
    const id = session();
    const first = await worker();
    const pending = submitStep({ ingressUrl: engine.ingressUrl }, id, [
      { id: 'a1', name: 'bash', args: { command: `echo approved >> ${effects} #ask` } },
    ]);
    await untilLine('asked a1', pending);
    await killHard(first);
    await worker();
    expect(await approve({ ingressUrl: engine.ingressUrl }, id, 'a1', 'allow')).toMatchObject({
      status: expect.stringMatching(/delivered|kept/),
    });
    const result = await pending;
    expect(result.results[0]?.outcome.status).toBe('ok');
    expect((await lines()).filter((line) => line === 'approved')).toHaveLength(1);
  });

  it('keeps a deny final across a restart: a later allow changes nothing', async () => {
    const id = session();
    const first = await worker();
    const pending = submitStep({ ingressUrl: engine.ingressUrl }, id, [
      { id: 'd1', name: 'bash', args: { command: `echo ran >> ${effects} #ask` } },
    ]);
    await untilLine('asked d1', pending);
    // The session registers its awakeable with a one-way call: the answer may arrive before it (kept, then delivered).
    expect(await approve({ ingressUrl: engine.ingressUrl }, id, 'd1', 'deny', 'not now')).toMatchObject({
      status: expect.stringMatching(/delivered|kept/),
    });
    expect(await approve({ ingressUrl: engine.ingressUrl }, id, 'd1', 'allow')).toEqual({ status: 'already-answered' });
    const result = await pending;
    expect(result.results[0]?.outcome).toMatchObject({ status: 'denied', stage: 'approval' });
    await killHard(first);
    await worker();
    expect(await approve({ ingressUrl: engine.ingressUrl }, id, 'd1', 'allow')).toEqual({ status: 'already-answered' });
    expect(await lines()).not.toContain('ran');
  });
});

describe('approval deadlines and workers that are down', () => {
  it("refuses an answer that comes after the call's deadline: already-answered, and the call stays denied", async () => {
    const id = session();
    await worker({ APPROVAL_TIMEOUT_MS: '300' });
    const result = await submitStep({ ingressUrl: engine.ingressUrl }, id, [
      { id: 'late1', name: 'bash', args: { command: `echo ran >> ${effects} #ask` } },
    ]);
    expect(result.results[0]?.outcome).toMatchObject({ status: 'denied', stage: 'approval' });
    expect(await approve({ ingressUrl: engine.ingressUrl }, id, 'late1', 'allow')).toEqual({ status: 'already-answered' });
    expect(await lines()).not.toContain('ran');
  });

  it('takes an answer at once while no worker runs, keeps it, and gives it to the call when it asks', async () => {
    const id = session();
    // No worker runs now (each test's workers are killed after it). The bound only stops a hang.
    const hangBound = { ingressUrl: engine.ingressUrl, signal: AbortSignal.timeout(60_000) };
    expect(await approve(hangBound, id, 'k1', 'allow')).toEqual({ status: 'kept' });
    expect(await approve(hangBound, id, 'k1', 'deny')).toEqual({ status: 'already-answered' });
    await worker();
    const result = await submitStep({ ingressUrl: engine.ingressUrl }, id, [
      { id: 'k1', name: 'bash', args: { command: `echo approved >> ${effects} #ask` } },
    ]);
    expect(result.results[0]?.outcome.status).toBe('ok');
    expect(await lines()).toEqual(['asked k1', 'approved']);
  });
});

describe('a call id used twice in one session', () => {
  it('denies the second ask at once with CALL_ID_REUSED instead of leaving it to its deadline', async () => {
    const id = session();
    await worker();
    const ingress = { ingressUrl: engine.ingressUrl };
    await approve(ingress, id, 'r1', 'allow');
    const first = await submitStep(ingress, id, [{ id: 'r1', name: 'bash', args: { command: `echo first >> ${effects} #ask` } }]);
    expect(first.results[0]?.outcome.status).toBe('ok');
    // The same id again (an agent loop whose numbering restarted): the bound only stops a hang.
    const again = await submitStep({ ...ingress, signal: AbortSignal.timeout(60_000) }, id, [
      { id: 'r1', name: 'bash', args: { command: `echo second >> ${effects} #ask` } },
    ]);
    expect(again.results[0]?.outcome).toMatchObject({
      status: 'denied',
      stage: 'approval',
      reason: expect.stringContaining(`${DurableErrorCode.CALL_ID_REUSED}: call id "r1" already asked for approval in session "${id}"`),
    });
    expect(await lines()).toEqual(['asked r1', 'first', 'asked r1']);
  });
});

describe('two session objects in two deployments', () => {
  it("keeps each one's approvals with its own deployment: a second deployment that is down takes none of the first one's", async () => {
    const id = session();
    const ingress = { ingressUrl: engine.ingressUrl };
    const otherPort = await freePort();
    const other = await engine.startWorker(otherPort, { WORK: engine.dir, EFFECTS: effects, SESSION_OBJECT: 'other-session' });
    workers.push(other);
    await registerDeployment({ adminUrl: engine.adminUrl, workerUrl: `http://127.0.0.1:${otherPort}` });
    const asked = submitStep({ ...ingress, objectName: 'other-session' }, id, [
      { id: 'o1', name: 'bash', args: { command: `echo other >> ${effects} #ask` } },
    ]);
    await untilLine('asked o1', asked);
    await approve({ ...ingress, objectName: 'other-session' }, id, 'o1', 'allow');
    expect((await asked).results[0]?.outcome.status).toBe('ok');
    await killHard(other);
    // The first deployment's session object asks while the second deployment is down. The bound only stops a hang.
    await worker();
    const pending = submitStep({ ...ingress, signal: AbortSignal.timeout(60_000) }, id, [
      { id: 'd1', name: 'bash', args: { command: `echo default >> ${effects} #ask` } },
    ]);
    await untilLine('asked d1', pending);
    await approve(ingress, id, 'd1', 'allow');
    expect((await pending).results[0]?.outcome.status).toBe('ok');
    expect(await lines()).toEqual(['asked o1', 'other', 'asked d1', 'default']);
  });
});

describe('bad input', () => {
  it('refuses a session bound to one host id on a worker with another', async () => {
    const id = session();
    const first = await worker();
    const ok = await submitStep({ ingressUrl: engine.ingressUrl }, id, [{ id: 'h1', name: 'bash', args: { command: 'true' } }]);
    expect(ok.results[0]?.outcome.status).toBe('ok');
    await killHard(first);
    await worker({ HOST_ID: 'other-host' });
    const error = await submitStep({ ingressUrl: engine.ingressUrl }, id, [{ id: 'h2', name: 'bash', args: { command: 'true' } }]).catch(
      (e: unknown) => e,
    );
    expect(DurableError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: DurableErrorCode.SESSION_HOST_MISMATCH });
  });

  it('refuses a host whose factory set another session id than the engine runs', async () => {
    const id = session();
    await worker({ FORCE_SESSION: 'somebody-else' });
    const error = await submitStep({ ingressUrl: engine.ingressUrl }, id, [{ id: 'x1', name: 'bash', args: { command: 'true' } }]).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: DurableErrorCode.SESSION_ID_MISMATCH });
  });

  it('refuses a step that is not { calls }', async () => {
    const id = session();
    await worker();
    const error = await submitStep({ ingressUrl: engine.ingressUrl }, id, 'nope' as never).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: DurableErrorCode.INVALID_INPUT });
  });

  it('reports an unreachable engine as ENGINE_UNREACHABLE', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    await expect(submitStep({ ingressUrl: closed }, 's', [])).rejects.toMatchObject({ code: DurableErrorCode.ENGINE_UNREACHABLE });
    await expect(approve({ ingressUrl: closed }, 's', 'c', 'allow')).rejects.toMatchObject({ code: DurableErrorCode.ENGINE_UNREACHABLE });
    await expect(registerDeployment({ adminUrl: closed, workerUrl: closed })).rejects.toMatchObject({
      code: DurableErrorCode.ENGINE_UNREACHABLE,
    });
  });
});
