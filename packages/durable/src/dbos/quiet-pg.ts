// DBOS 5.3 queues a second query on a busy `pg` client, and pg 8 answers that with a
// DeprecationWarning ("Calling client.query() when the client is already executing a query…")
// printed once by every worker and client process: noise that is not the integrator's to fix.
// Node's util.deprecate warns once per process: this spends that one warning, unprinted, on a
// client that never connects. Every other warning, pg's included, is printed as before.
import { createRequire } from 'node:module';

interface PgClient {
  query(text: string, callback: (error: unknown) => void): void;
}

const noticePrefix = 'Calling client.query() when the client is already executing a query';
let spent = false;

/** Spends pg's query-queue deprecation notice without printing it; once per process, never throws. */
export function quietPgQueryQueueNotice(): void {
  if (spent) return;
  spent = true;
  let Client: new () => PgClient;
  try {
    // The `pg` that DBOS itself loads, wherever the package manager put it.
    const fromDbos = createRequire(createRequire(import.meta.url).resolve('@dbos-inc/dbos-sdk'));
    Client = (fromDbos('pg') as { Client: new () => PgClient }).Client;
  } catch {
    return;
  }
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (!text.startsWith(noticePrefix)) (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    // Two queries on a client that is not connected: the second is "queued behind a busy one".
    // Neither is ever sent; the client holds no socket and is dropped.
    const idle = new Client();
    idle.query('select 1', () => {});
    idle.query('select 1', () => {});
  } catch {
    // A pg without this notice (or another shape): nothing to spend.
  } finally {
    process.emitWarning = emitWarning;
  }
}
