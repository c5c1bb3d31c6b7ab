// `dsh approve --dbos` against a real, private PostgreSQL and a real DBOS worker process: the test
// submits a step whose bash call asks (the durable package's DBOS client), the built `dsh` answers
// it, and the step's result shows what the answer did.
import { rmSync } from 'node:fs';
import type { StepResult } from '@deepseek-ai/dsh-core';
import { createSessionClient, type SessionClient, submitStep } from '@deepseek-ai/dsh-durable/dbos';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, postgresStatus } from '../../durable/scripts/postgres-cluster.mjs';
import { type DbosEngine, startDbosEngine, until } from './fixtures/dbos-engine.js';
import { runDsh, scratchDir } from './fixtures/run-dsh.js';

const status = postgresStatus();
const why = status.ok ? '' : ` (skipped: ${status.reason}; DSH_REQUIRE_POSTGRES=1 fails instead)`;
if (!status.ok && !status.required) console.warn(`dsh-cli: the dsh approve --dbos tests are skipped${why}`);

const home = scratchDir();
// DSH_DBOS_DATABASE_URL emptied (as good as unset) unless a test sets it: the caller's shell must not pick the engine.
const dsh = (args: readonly string[], env: Record<string, string> = {}) =>
  runDsh(['approve', ...args], { cwd: home, home, env: { DSH_DBOS_DATABASE_URL: '', ...env } });
const bash = (id: string, command: string) => ({ id, name: 'bash', args: { command } });
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe.runIf(!status.ok && status.required)('PostgreSQL for the dsh approve --dbos tests', () => {
  it('is installed (CI must install the postgresql package)', () => {
    throw new Error(`DSH_REQUIRE_POSTGRES=1 but the DBOS tests cannot run: ${status.reason}`);
  });
});

describe.skipIf(!status.ok)(`dsh approve --dbos on a private Postgres and a DBOS worker${why}`, () => {
  let engine: DbosEngine;
  let client: SessionClient;

  /**
   * Submits a one-call step and waits until its call has asked (so the answer finds the step).
   * The step's result comes wrapped: an async function returning a promise would wait for it.
   */
  async function askingStep(session: string, callId: string, command: string): Promise<{ result: Promise<StepResult> }> {
    const result = submitStep(client, session, 'step-1', [bash(callId, `${command} #ask`)]);
    let ended = false;
    // Awaited by the test; a test failing before that must not leave an unhandled rejection behind.
    result.then(
      () => (ended = true),
      () => (ended = true),
    );
    await until(async () => {
      // A step that ends without asking would leave this wait to the test's timeout: fail now.
      if (ended) throw new Error(`the step of ${session} ended without asking: ${JSON.stringify(await result.catch(String))}`);
      return (await engine.lines()).includes(`asked ${callId}`);
    });
    return { result };
  }

  beforeAll(async () => {
    engine = await startDbosEngine();
    client = await createSessionClient({ systemDatabaseUrl: engine.url, pollingIntervalMs: 50 });
  });

  afterAll(async () => {
    // A step still waiting (a failed test) rejects once its client is closed: nothing waits for it.
    await client?.close();
    await engine?.stop();
  });

  it('answers allow: exit 0, delivered or kept, and the call runs; a second answer exits 1 already-answered', async () => {
    const { result: step } = await askingStep('session-allow', 'a1', `echo approved >> ${engine.effects}`);
    const allow = await dsh(['session-allow', 'a1', 'allow', '--dbos', engine.url, '--json']);
    expect(allow.code).toBe(0);
    // stdout is our one JSON line and nothing else (DBOS's own log lines go to stderr).
    expect(JSON.parse(allow.stdout)).toEqual({
      session: 'session-allow',
      call: 'a1',
      answer: 'allow',
      status: expect.stringMatching(/^(delivered|kept)$/),
    });
    const result = await step;
    expect(result.results.map((r) => [r.id, r.outcome.status])).toEqual([['a1', 'ok']]);
    expect(await engine.lines()).toContain('approved');

    const again = await dsh(['session-allow', 'a1', 'deny', '--dbos', engine.url]);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe(
      'deny for call a1 of session session-allow: not applied: an earlier answer stands (the first answer is final)\n',
    );
  });

  it('answers deny from DSH_DBOS_DATABASE_URL: the call is denied with the message and never runs', async () => {
    const { result: step } = await askingStep('session-deny', 'n1', `echo denied-ran >> ${engine.effects}`);
    const deny = await dsh(['session-deny', 'n1', 'deny', '--message', 'not on a Friday'], { DSH_DBOS_DATABASE_URL: engine.url });
    expect(deny.code).toBe(0);
    expect(deny.stdout).toMatch(/^deny for call n1 of session session-deny: (delivered|kept): /);
    const result = await step;
    expect(result.results[0]?.outcome).toMatchObject({ status: 'denied', stage: 'approval', reason: 'not on a Friday' });
    expect(await engine.lines()).not.toContain('denied-ran');
  });

  it('exits 2 for a call no step of the session lists', async () => {
    const run = await dsh(['session-allow', 'nobody-asked', 'allow', '--dbos', engine.url]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('dsh: CLI_USAGE: approve:');
    expect(run.stderr).toContain('nobody-asked');
  });

  it('exits 6 when no worker of the --dbos-name definition ever ran there, naming the flags to check', async () => {
    const run = await dsh(['session-allow', 'a1', 'allow', '--dbos', engine.url, '--dbos-name', 'other-sessions']);
    expect(run.code).toBe(6);
    expect(run.stderr).toContain('dsh: ENGINE_UNAVAILABLE: approve:');
    expect(run.stderr).toContain('other-sessions');
    expect(run.stderr).toContain('--dbos-name');
  });

  it('exits 6 with ENGINE_UNAVAILABLE when nothing listens at the database, naming it without its password', async () => {
    const closed = `postgresql://dsh:secret@127.0.0.1:${await freePort()}/dsh_test`;
    const run = await dsh(['session-3', 'c1', 'allow', '--dbos', closed]);
    expect(run).toMatchObject({ code: 6, stdout: '' });
    expect(run.stderr).toContain('dsh: ENGINE_UNAVAILABLE: approve:');
    expect(run.stderr).toContain(closed.replace(':secret@', ':***@'));
    expect(run.stderr).not.toContain('secret');
  });
});

describe('dsh approve --dbos, before any engine', () => {
  const closedDbos = async () => `postgresql://dsh@127.0.0.1:${await freePort()}/dsh_test`;

  it('exits 2 for --dbos with --ingress, a --dbos that is no PostgreSQL URL, or --dbos-app without a database', async () => {
    const both = await dsh(['s', 'c1', 'allow', '--dbos', await closedDbos(), '--ingress', 'http://127.0.0.1:9']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--ingress (Restate) and --dbos (DBOS)');
    expect(await dsh(['s', 'c1', 'allow', '--dbos', '127.0.0.1:5432'])).toMatchObject({ code: 2 });
    const app = await dsh(['s', 'c1', 'allow', '--dbos-app', 'shop', '--ingress', 'http://127.0.0.1:9']);
    expect(app.code).toBe(2);
    expect(app.stderr).toContain('--dbos-app is for DBOS');
  });

  it('goes to Restate when --ingress is given, whatever DSH_DBOS_DATABASE_URL says (flags outrank the environment)', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const run = await dsh(['s', 'c1', 'allow', '--ingress', closed], { DSH_DBOS_DATABASE_URL: await closedDbos() });
    expect(run.code).toBe(6);
    expect(run.stderr).toContain(`the Restate ingress: --ingress, DSH_RESTATE_INGRESS, now ${closed}`);
  });

  describe('without @dbos-inc/dbos-sdk installed', () => {
    // Hides the optional peer from Node's resolver in the dsh process, as on a machine without it.
    const hidden = { NODE_OPTIONS: `--import=${new URL('./fixtures/hide-dbos-sdk.mjs', import.meta.url).href}` };

    it('exits 3 with ENGINE_SDK_MISSING saying what to install', async () => {
      const run = await dsh(['s', 'c1', 'allow', '--dbos', await closedDbos()], hidden);
      expect(run).toMatchObject({ code: 3, stdout: '' });
      expect(run.stderr).toBe(
        'dsh: ENGINE_SDK_MISSING: approve: answering a DBOS session needs the DBOS SDK, which is not installed: npm install @dbos-inc/dbos-sdk\n',
      );
    });

    it('still answers on Restate: the DBOS binding is loaded only for --dbos', async () => {
      const closed = `http://127.0.0.1:${await freePort()}`;
      const run = await dsh(['s', 'c1', 'allow', '--ingress', closed], hidden);
      expect(run.code).toBe(6);
      expect(run.stderr).toContain('dsh: ENGINE_UNAVAILABLE: approve:');
      expect(run.stderr).toContain(closed);
    });
  });
});
