import { DBOS } from '@dbos-inc/dbos-sdk';
import { DurableError, DurableErrorCode } from '../errors.js';
import { checkSystemDatabaseUrl } from './database-url.js';
import { engineError } from './engine-errors.js';
import { defaultAppName, defaultPollingIntervalMs } from './names.js';
import { quietPgQueryQueueNotice } from './quiet-pg.js';
import type { DshSessionWorkflows } from './session-workflows.js';

/** Options of {@link launchDbosWorker}. */
export interface DbosWorkerOptions {
  /** The Postgres database DBOS keeps its system tables in (created on first launch): `postgresql://user@host:5432/db`. */
  readonly systemDatabaseUrl: string;
  /** Session definitions from `dshSessionWorkflows`, registered before this call. */
  readonly sessions: readonly DshSessionWorkflows[];
  /** The DBOS application name; clients must use the same: `dsh` by default. */
  readonly appName?: string;
  /**
   * This worker's stable name. On launch a worker recovers the unfinished
   * workflows of its own executor id, so a worker restarted under the id of
   * one that died takes over that one's sessions. `DBOS__VMID`, else `local`, by default.
   */
  readonly executorId?: string;
  /** Pins DBOS's application version (a hash of the registered workflows by default); recovery needs the same. */
  readonly applicationVersion?: string;
  /** How often the queues are polled for work, in ms: 100 by default (DBOS's own default is 1000). */
  readonly pollingIntervalMs?: number;
  /** DBOS's log level (`info` by default). */
  readonly logLevel?: string;
}

/** A launched worker. */
export interface DbosWorker {
  readonly executorId: string;
  readonly applicationVersion: string;
  /** Stops taking work and closes the connections; workflows in flight are recovered by the next launch under this executor id. */
  shutdown(): Promise<void>;
}

function check(condition: boolean, message: string): void {
  if (!condition) throw new DurableError(DurableErrorCode.INVALID_OPTIONS, message);
}

/**
 * Configures and launches DBOS in this process (once per process: DBOS is a
 * singleton) and registers each definition's queues: the session queue
 * partitioned by session id with a concurrency of one per partition (one
 * writer per session, across all workers), the answer queue unpartitioned.
 * Launching recovers this executor id's unfinished workflows. An unreachable
 * Postgres fails with `ENGINE_UNREACHABLE`.
 */
export async function launchDbosWorker(options: DbosWorkerOptions): Promise<DbosWorker> {
  checkSystemDatabaseUrl(options.systemDatabaseUrl);
  check(Array.isArray(options.sessions) && options.sessions.length > 0, 'sessions must list at least one dshSessionWorkflows definition');
  const pollingIntervalMs = options.pollingIntervalMs ?? defaultPollingIntervalMs;
  check(Number.isFinite(pollingIntervalMs) && pollingIntervalMs > 0, 'pollingIntervalMs must be a positive number');
  quietPgQueryQueueNotice();
  DBOS.setConfig({
    name: options.appName ?? defaultAppName,
    systemDatabaseUrl: options.systemDatabaseUrl,
    ...(options.executorId === undefined ? {} : { executorID: options.executorId }),
    ...(options.applicationVersion === undefined ? {} : { applicationVersion: options.applicationVersion }),
    ...(options.logLevel === undefined ? {} : { logLevel: options.logLevel }),
  });
  try {
    await DBOS.launch();
  } catch (error) {
    throw engineError(error, 'launching DBOS');
  }
  try {
    for (const session of options.sessions) {
      await DBOS.registerQueue(session.queueName, { partitionConcurrency: 1, minPollingIntervalMs: pollingIntervalMs });
      await DBOS.registerQueue(session.answerQueueName, { minPollingIntervalMs: pollingIntervalMs });
    }
  } catch (error) {
    await DBOS.shutdown();
    throw engineError(error, 'registering the session queues');
  }
  return {
    executorId: DBOS.executorID,
    applicationVersion: DBOS.applicationVersion,
    shutdown: () => DBOS.shutdown(),
  };
}
