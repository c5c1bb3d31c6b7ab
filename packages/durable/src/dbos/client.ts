import { DBOSClient, type WorkflowHandle } from '@dbos-inc/dbos-sdk';
import type { JsonValue, StepCall, StepResult } from '@deepseek-ai/dsh-core';
import { DurableError, DurableErrorCode } from '../errors.js';
import { isStepInput } from '../session-setup.js';
import { checkSystemDatabaseUrl } from './database-url.js';
import { engineError } from './engine-errors.js';
import {
  attribute,
  defaultAppName,
  defaultPollingIntervalMs,
  defaultSessionName,
  sessionQueueName,
  workflowId,
  workflowName,
} from './names.js';
import { quietPgQueryQueueNotice } from './quiet-pg.js';

/** Options of {@link createSessionClient}. */
export interface SessionClientOptions {
  /** The workers' system database. */
  readonly systemDatabaseUrl: string;
  /** The workers' DBOS application name: `dsh` by default. */
  readonly appName?: string;
  /** The session definition's name: `dsh-session` by default. */
  readonly name?: string;
  /** How often a submission polls for its result, in ms: 100 by default. */
  readonly pollingIntervalMs?: number;
}

/** A connection to the workers' system database, for submitting steps and answering approvals from any process. */
export interface SessionClient {
  readonly name: string;
  readonly appName: string;
  readonly pollingIntervalMs: number;
  /** The underlying DBOS client (list, cancel or fork workflows with it). */
  readonly dbos: DBOSClient;
  close(): Promise<void>;
}

/**
 * Opens a client of the workers' system database and checks that Postgres
 * answers and a worker has set up the session queue: `ENGINE_UNREACHABLE`
 * when Postgres cannot be reached (wrong URL, server down), `ENGINE_ERROR`
 * when no worker of this definition ever launched there.
 */
export async function createSessionClient(options: SessionClientOptions): Promise<SessionClient> {
  checkSystemDatabaseUrl(options.systemDatabaseUrl);
  const pollingIntervalMs = options.pollingIntervalMs ?? defaultPollingIntervalMs;
  if (!Number.isFinite(pollingIntervalMs) || pollingIntervalMs <= 0) {
    throw new DurableError(DurableErrorCode.INVALID_OPTIONS, 'pollingIntervalMs must be a positive number');
  }
  const appName = options.appName ?? defaultAppName;
  quietPgQueryQueueNotice();
  const dbos = await DBOSClient.create({ systemDatabaseUrl: options.systemDatabaseUrl, applicationName: appName });
  const client: SessionClient = {
    name: options.name ?? defaultSessionName,
    appName,
    pollingIntervalMs,
    dbos,
    close: () => dbos.destroy(),
  };
  try {
    await checkReachable(client);
  } catch (error) {
    await dbos.destroy();
    throw error;
  }
  return client;
}

/**
 * Fails fast when Postgres cannot be reached: DBOS itself retries a lost
 * connection until it is back, which is right for work already submitted
 * but would leave a caller of a dead URL hanging.
 */
export async function checkReachable(client: SessionClient): Promise<void> {
  let queue: unknown;
  try {
    queue = await client.dbos.retrieveQueue(sessionQueueName(client.name));
  } catch (error) {
    if ((error as { code?: unknown }).code === '42P01') {
      throw new DurableError(DurableErrorCode.ENGINE_ERROR, 'the database has no DBOS system tables: launch a worker on it first', {
        cause: error,
      });
    }
    throw engineError(error, 'checking the system database');
  }
  if (queue === null) {
    throw new DurableError(
      DurableErrorCode.ENGINE_ERROR,
      `no worker has registered the queue "${sessionQueueName(client.name)}": launch a worker of this session definition first`,
    );
  }
}

/** Throws `INVALID_INPUT` unless `value` is a non-empty string. */
export function checkId(what: string, value: unknown): asserts value is string {
  if (typeof value !== 'string' || value === '')
    throw new DurableError(DurableErrorCode.INVALID_INPUT, `${what} must be a non-empty string`);
}

async function resultOf<T>(client: SessionClient, handle: WorkflowHandle<T>): Promise<T> {
  try {
    return await handle.getResult({ pollingIntervalMs: client.pollingIntervalMs });
  } catch (error) {
    throw engineError(error, `workflow ${handle.workflowID}`);
  }
}

/**
 * Enqueues one `kind` workflow of `session` on its partition of the session
 * queue (one at a time per session), under the id `id` makes, and waits for
 * its result. The same id attaches to the first submission.
 */
async function runOnSession<T>(
  client: SessionClient,
  session: string,
  kind: 'step' | 'run',
  id: string,
  input: JsonValue | { readonly calls: readonly StepCall[] },
  attributes: Record<string, unknown>,
): Promise<T> {
  await checkReachable(client);
  let handle: WorkflowHandle<T>;
  try {
    handle = await client.dbos.enqueue(
      {
        queueName: sessionQueueName(client.name),
        queuePartitionKey: session,
        workflowName: workflowName(client.name, kind),
        workflowID: workflowId(client.name, session, kind, id),
        attributes: { [attribute.session]: session, [attribute.kind]: kind, ...attributes },
      },
      session,
      input,
    );
  } catch (error) {
    throw engineError(error, `submitting the ${kind}`);
  }
  return resultOf(client, handle);
}

/**
 * Runs one step of a session on the workers and waits for its result (one
 * per call, whatever died in between). The workflow id is derived from
 * `session` and `stepId`: submitting the same step id again (after a lost
 * connection, in another process) attaches to the first submission and
 * returns its result, whatever `calls` say. Call ids must be unique within
 * a session.
 */
export async function submitStep(client: SessionClient, session: string, stepId: string, calls: readonly StepCall[]): Promise<StepResult> {
  checkId('session', session);
  checkId('step id', stepId);
  const input = { calls };
  if (!isStepInput(input)) throw new DurableError(DurableErrorCode.INVALID_INPUT, 'calls must be [{ id, name, args }]');
  return runOnSession<StepResult>(client, session, 'step', stepId, input, { [attribute.calls]: calls.map((call) => call.id) });
}

/** Runs the session's program (`options.run` of the workers) with `input`; same idempotency as {@link submitStep}. */
export async function submitRun(client: SessionClient, session: string, runId: string, input: JsonValue): Promise<JsonValue> {
  checkId('session', session);
  checkId('run id', runId);
  return runOnSession<JsonValue>(client, session, 'run', runId, input, {});
}
