import type { ChildProcess } from 'node:child_process';

/** The newest `/usr/lib/postgresql/<version>/bin` holding initdb and postgres, or undefined. */
export function findPostgres(): string | undefined;
/** Whether the DBOS tests can run, and whether their absence must fail the run (DSH_REQUIRE_POSTGRES=1). */
export function postgresStatus(): { ok: boolean; reason: string; required: boolean };
export { freePort } from './processes.mjs';
/** A private cluster on 127.0.0.1 with its socket and data in a temp dir; `stop()` ends it and removes the dir. */
export function startPostgres(): Promise<{
  port: number;
  dir: string;
  child: ChildProcess;
  url(database: string): string;
  stop(): Promise<void>;
}>;
