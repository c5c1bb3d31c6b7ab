import { DurableError, DurableErrorCode, isDurableErrorCode } from '../errors.js';

// Node's errnos for a server that is not there, and Postgres' SQLSTATEs for "no such server or database".
const unreachableErrnos = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENOENT',
]);
const unreachableStates = /^(08...|57P0[1-3]|3D000)$/;
const unreachableText = /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|timeout exceeded when trying to connect|could not connect to server/i;

/** The error and everything it wraps (`cause`, `error`, `errors`). */
function* chain(error: unknown): Generator<unknown> {
  const queue = [error];
  const seen = new Set<unknown>();
  while (queue.length > 0) {
    const next = queue.shift();
    if (typeof next !== 'object' || next === null || seen.has(next)) continue;
    seen.add(next);
    yield next;
    const { cause, error: wrapped, errors } = next as { cause?: unknown; error?: unknown; errors?: unknown };
    queue.push(cause, wrapped, ...(Array.isArray(errors) ? errors : []));
  }
}

/** Whether `error` says Postgres could not be reached at all (nothing was written). */
export function isUnreachable(error: unknown): boolean {
  for (const e of chain(error)) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (unreachableErrnos.has(code) || unreachableStates.test(code))) return true;
    if (typeof message === 'string' && unreachableText.test(message)) return true;
  }
  return false;
}

/**
 * This package's error for what DBOS threw while doing `what`: a coded error
 * a workflow threw keeps its code (DBOS revives it as a plain `Error` with
 * `name`, `message` and `code`), a replay that met another step than the
 * journal holds is `JOURNAL_MISMATCH`, an unreachable Postgres is
 * `ENGINE_UNREACHABLE`, anything else `ENGINE_ERROR`.
 */
export function engineError(error: unknown, what: string): DurableError {
  if (DurableError.isInstance(error)) return error;
  const { code, name, message } = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
  const text = typeof message === 'string' ? message : String(error);
  if (isDurableErrorCode(code)) return new DurableError(code, text, { cause: error });
  if (name === 'DBOSUnexpectedStepError') return new DurableError(DurableErrorCode.JOURNAL_MISMATCH, `${what}: ${text}`, { cause: error });
  if (isUnreachable(error)) {
    return new DurableError(DurableErrorCode.ENGINE_UNREACHABLE, `${what}: cannot reach Postgres: ${text}`, { cause: error });
  }
  return new DurableError(DurableErrorCode.ENGINE_ERROR, `${what}: ${text}`, { cause: error });
}
