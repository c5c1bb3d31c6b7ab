import { DurableError, DurableErrorCode } from '../errors.js';

const protocols = new Set(['postgres:', 'postgresql:']);

/**
 * Throws `INVALID_OPTIONS` naming `systemDatabaseUrl` unless `value` is a
 * `postgresql://` (or `postgres://`) URL: DBOS would otherwise fail later
 * with a raw `TypeError` or a generic launch error. The value itself is not
 * echoed: it may hold a password.
 */
export function checkSystemDatabaseUrl(value: unknown): asserts value is string {
  let protocol: string | undefined;
  try {
    protocol = typeof value === 'string' ? new URL(value).protocol : undefined;
  } catch {}
  if (protocol === undefined || !protocols.has(protocol)) {
    throw new DurableError(
      DurableErrorCode.INVALID_OPTIONS,
      'systemDatabaseUrl must be a PostgreSQL URL (postgresql://user@host:5432/database)',
    );
  }
}
