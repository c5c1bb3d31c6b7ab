import { rmSync } from 'node:fs';
import { approvalsObject, registerDeployment, type ServedEndpoint, serveEndpoint } from '@deepseek-ai/dsh-durable/restate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The durable package's own starter of the registry's restate-server (every listener on 127.0.0.1).
import { freePort, startRestate } from '../../durable/scripts/restate-engine.mjs';
import { runDsh, scratchDir } from './fixtures/run-dsh.js';

const dir = scratchDir();
let engine: Awaited<ReturnType<typeof startRestate>> | undefined;
let worker: ServedEndpoint | undefined;

beforeAll(async () => {
  engine = await startRestate(dir);
  // The approvals object alone: `dsh approve` talks to it, whichever session object runs beside it.
  worker = await serveEndpoint([approvalsObject]);
  await registerDeployment({ adminUrl: engine.adminUrl, workerUrl: worker.url });
}, 120_000);

afterAll(async () => {
  await worker?.close();
  engine?.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

// DSH_DBOS_DATABASE_URL emptied (as good as unset): a DBOS database in the caller's shell would take these answers off Restate.
const dsh = (args: readonly string[], env: Record<string, string> = {}) =>
  runDsh(['approve', ...args], { cwd: dir, home: dir, env: { DSH_DBOS_DATABASE_URL: '', ...env } });

describe('dsh approve', () => {
  it('keeps the first answer, says so, and refuses to change it (exit 1)', async () => {
    const ingress = ['--ingress', engine?.ingressUrl ?? ''];
    const deny = await dsh(['session-1', 'c1', 'deny', '--message', 'not on a Friday', ...ingress]);
    expect(deny).toMatchObject({ code: 0, stderr: '' });
    expect(deny.stdout).toBe(
      'deny for call c1 of session session-1: kept: the call has not asked yet (or its worker is down); it gets this answer when it does\n',
    );
    const allow = await dsh(['session-1', 'c1', 'allow', '--json', ...ingress]);
    expect(allow.code).toBe(1);
    expect(JSON.parse(allow.stdout)).toEqual({ session: 'session-1', call: 'c1', answer: 'allow', status: 'already-answered' });
  });

  it('reads the ingress from DSH_RESTATE_INGRESS', async () => {
    const run = await dsh(['session-2', 'c1', 'allow', '--json'], { DSH_RESTATE_INGRESS: engine?.ingressUrl ?? '' });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'kept' });
  });

  it('exits 6 with ENGINE_UNAVAILABLE when nothing listens at the ingress, naming where it looked', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const run = await dsh(['session-3', 'c1', 'allow', '--ingress', closed]);
    expect(run.code).toBe(6);
    expect(run.stderr).toContain('dsh: ENGINE_UNAVAILABLE: approve:');
    expect(run.stderr).toContain(closed);
  });

  it('exits 2 for a missing argument, an unknown answer or an extra argument, before reaching any engine', async () => {
    const closed = ['--ingress', `http://127.0.0.1:${await freePort()}`];
    expect(await dsh(['session-4', 'c1', ...closed])).toMatchObject({ code: 2 });
    const word = await dsh(['session-4', 'c1', 'maybe', ...closed]);
    expect(word.code).toBe(2);
    expect(word.stderr).toContain('the answer must be allow or deny, not "maybe"');
    expect(await dsh(['session-4', 'c1', 'allow', 'now', ...closed])).toMatchObject({ code: 2 });
  });
});
