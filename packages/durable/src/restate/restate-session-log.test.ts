// The session log of a Restate-backed session (`logDir`) across a SIGKILL of its worker: a real
// restate-server and real worker processes (fixtures/engine.ts, fixtures/worker.mjs).
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sessionLogPath } from '../durable-session-log.js';
import { DurableErrorCode } from '../errors.js';
import { type Engine, freePort, startEngine } from '../fixtures/engine.js';
import { killHard } from '../fixtures/processes.js';
import { countOf, expectOneCallAndResultEach, fileHasLine, logHas, waitFor } from '../fixtures/session-log-checks.js';
import { approve, registerDeployment, submitStep } from './client.js';

let engine: Engine;
let port: number;
let logDir: string;
let workers: ChildProcess[] = [];

async function worker(): Promise<ChildProcess> {
  const child = await engine.startWorker(port, { WORK: engine.dir, EFFECTS: join(engine.dir, 'effects.log'), LOG_DIR: logDir });
  workers.push(child);
  return child;
}

beforeAll(async () => {
  engine = await startEngine();
  logDir = join(engine.dir, 'logs');
  port = await freePort();
  const first = await worker();
  await registerDeployment({ adminUrl: engine.adminUrl, workerUrl: `http://127.0.0.1:${port}` });
  await killHard(first);
});

afterEach(async () => {
  for (const child of workers) await killHard(child);
  workers = [];
});

afterAll(async () => {
  await engine?.stop();
});

describe('the session log of a Restate session whose worker is killed', () => {
  it('holds one tool/call and one tool/result per call when the worker dies mid-body', async () => {
    const ingress = { ingressUrl: engine.ingressUrl };
    const path = sessionLogPath(logDir, 'log-kill');
    const first = await worker();
    await submitStep(ingress, 'log-kill', [{ id: 'k0', name: 'bash', args: { command: 'echo before' } }]);
    // The body writes an effect first: killed only once the body surely runs (a kill before it would
    // leave a call that never started, which the next worker runs again: this loop, for good).
    const effects = join(engine.dir, 'effects.log');
    const command = `echo started-k2 >> ${effects}; while [ -d ${engine.dir} ]; do sleep 0.05; done`;
    const pending = submitStep(ingress, 'log-kill', [
      { id: 'k1', name: 'read', args: { path: 'effects.log' } },
      { id: 'k2', name: 'bash', args: { command } },
    ]);
    await waitFor('the bash call is logged', () => logHas(path, 'tool/call', 'k2'), pending);
    await waitFor('the bash body runs', () => fileHasLine(effects, 'started-k2'), pending);
    await killHard(first);
    await worker();
    const step = await pending;
    const next = await submitStep(ingress, 'log-kill', [{ id: 'k3', name: 'bash', args: { command: 'echo after' } }]);

    expect(step.results[1]?.outcome).toMatchObject({ status: 'error', error: { code: DurableErrorCode.TOOL_INTERRUPTED } });
    expect(next.results[0]?.outcome.status).toBe('ok');
    const events = await expectOneCallAndResultEach(path, ['k0', 'k1', 'k2', 'k3']);
    const k2 = events.find((e) => e.type === 'tool/result' && e.call === 'k2');
    expect(k2?.type === 'tool/result' && k2.data.outcome).toMatchObject({ error: { code: DurableErrorCode.TOOL_INTERRUPTED } });
  });

  it('logs an approval asked before the kill and answered after it once, with the call run once', async () => {
    const ingress = { ingressUrl: engine.ingressUrl };
    const path = sessionLogPath(logDir, 'log-ask');
    const first = await worker();
    const pending = submitStep(ingress, 'log-ask', [{ id: 'a1', name: 'bash', args: { command: 'echo ran-a1 #ask' } }]);
    await waitFor('the approval is logged', () => logHas(path, 'approval/request', 'a1'), pending);
    await killHard(first);
    await worker();
    expect((await approve(ingress, 'log-ask', 'a1', 'allow')).status).toMatch(/delivered|kept/);
    const step = await pending;

    expect(step.results[0]?.outcome).toMatchObject({ status: 'ok', output: { stdout: 'ran-a1\n' } });
    const events = await expectOneCallAndResultEach(path, ['a1']);
    expect([countOf(events, 'approval/request', 'a1'), countOf(events, 'approval/answer', 'a1')]).toEqual([1, 1]);
  });
});
