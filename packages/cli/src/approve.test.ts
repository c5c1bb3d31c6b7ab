import { rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import {
  approvalsObject,
  approvalsObjectFor,
  registerDeployment,
  type ServedEndpoint,
  serveEndpoint,
} from '@deepseek-ai/dsh-durable/restate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The durable package's own starter of the registry's restate-server (every listener on 127.0.0.1).
import { freePort, startRestate } from '../../durable/scripts/restate-engine.mjs';
import { runDsh, scratchDir } from './fixtures/run-dsh.js';

const dir = scratchDir();
let engine: Awaited<ReturnType<typeof startRestate>> | undefined;
let worker: ServedEndpoint | undefined;

beforeAll(async () => {
  engine = await startRestate(dir);
  // The approvals objects alone (the default session object's and another's): `dsh approve` talks to them.
  worker = await serveEndpoint([approvalsObject, approvalsObjectFor('other-session')]);
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

  it('exits 2 for a --timeout that is not a positive number of seconds', async () => {
    const closed = ['--ingress', `http://127.0.0.1:${await freePort()}`];
    const run = await dsh(['session-4', 'c1', 'allow', '--timeout', 'soon', ...closed]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--timeout must be a positive number of seconds, not "soon"');
  });

  it('exits 6 with ENGINE_TIMEOUT when the ingress takes the connection but never answers', async () => {
    // A listener that accepts and stays silent: no timing decides the verdict, it never answers.
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const run = await dsh(['session-6', 'c1', 'allow', '--timeout', '1', '--ingress', `http://127.0.0.1:${port}`]);
      expect(run.code).toBe(6);
      expect(run.stderr).toContain('dsh: ENGINE_TIMEOUT: approve: the engine did not answer within 1 s (--timeout)');
      expect(run.stdout).toBe('');
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('answers the question of a session object with another name with --object', async () => {
    const ingress = ['--ingress', engine?.ingressUrl ?? ''];
    const other = await dsh(['session-7', 'c1', 'deny', '--object', 'other-session', '--json', ...ingress]);
    expect(other.code).toBe(0);
    expect(JSON.parse(other.stdout)).toMatchObject({ status: 'kept' });
    // The default session object's question of the same session and call is another one.
    const own = await dsh(['session-7', 'c1', 'allow', '--json', ...ingress]);
    expect(own.code).toBe(0);
    expect(JSON.parse(own.stdout)).toMatchObject({ status: 'kept' });
    expect(await dsh(['session-7', 'c1', 'allow', '--object', 'other-session', '--dbos', 'postgresql://h/d'])).toMatchObject({ code: 2 });
  });

  // Last: it stops the worker the other tests answer through.
  it('answers at once while no worker runs: kept (exit 0), and a second answer already-answered (exit 1)', async () => {
    await worker?.close();
    worker = undefined;
    const ingress = ['--ingress', engine?.ingressUrl ?? ''];
    const first = await dsh(['session-5', 'c1', 'allow', '--json', ...ingress]);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(first.stdout)).toMatchObject({ status: 'kept' });
    const second = await dsh(['session-5', 'c1', 'deny', '--json', ...ingress]);
    expect(second.code).toBe(1);
    expect(JSON.parse(second.stdout)).toMatchObject({ status: 'already-answered' });
  });
});
