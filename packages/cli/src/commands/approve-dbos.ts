// The DBOS side of `dsh approve`. `@dbos-inc/dbos-sdk` is an optional peer: the binding is
// imported here, on demand, so every other command (and approve on Restate) runs without it.
import { format } from 'node:util';
import type { AnswerReceipt } from '@deepseek-ai/dsh-durable';
import { CliError, CliErrorCode } from '../errors.js';
import type { TextOut } from '../render/terminal-ui.js';

const dbosSdk = '@dbos-inc/dbos-sdk';

/** Where a DBOS answer goes: the workers' system database and, when not the defaults, their names. */
export interface DbosTarget {
  readonly systemDatabaseUrl: string;
  /** The workers' DBOS application name (the durable package's default: `dsh`). */
  readonly appName?: string;
  /** The session definition's name (the durable package's default: `dsh-session`). */
  readonly name?: string;
}

/** Whether `error` is Node failing to find the DBOS SDK, or a file of it (a broken install): both mean "install it". */
export function isDbosSdkMissing(error: unknown): boolean {
  const { code, message } = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  return typeof message === 'string' && message.includes(dbosSdk);
}

async function loadDbosBinding(): Promise<typeof import('@deepseek-ai/dsh-durable/dbos')> {
  try {
    return await import('@deepseek-ai/dsh-durable/dbos');
  } catch (error) {
    if (!isDbosSdkMissing(error)) throw error;
    throw new CliError(
      CliErrorCode.ENGINE_SDK_MISSING,
      `approve: answering a DBOS session needs the DBOS SDK, which is not installed: npm install ${dbosSdk}`,
      { cause: error },
    );
  }
}

/**
 * DBOS's client logs through `console` (info and debug to stdout): while it
 * runs, stdout must carry only dsh's own output (a `--json` reader parses
 * it), so every console line goes to stderr until `work` ends.
 */
async function withConsoleOnStderr<T>(stderr: TextOut, work: () => Promise<T>): Promise<T> {
  const saved = { log: console.log, info: console.info, debug: console.debug, warn: console.warn, error: console.error };
  const toStderr = (...args: unknown[]): void => stderr.write(`${format(...args)}\n`);
  Object.assign(console, { log: toStderr, info: toStderr, debug: toStderr, warn: toStderr, error: toStderr });
  try {
    return await work();
  } finally {
    Object.assign(console, saved);
  }
}

/** `url` with its password masked: it goes into error messages, which end up in logs. */
export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(not a URL)';
  }
}

/**
 * Answers `call` of `session` through the DBOS system database. The client
 * is closed whatever happens: its Postgres pool would keep the process alive.
 * DBOS's client takes no AbortSignal: when `signal` fires this rejects at
 * once and closes the client, which ends what it still waits for.
 */
export async function approveOnDbos(
  stderr: TextOut,
  target: DbosTarget,
  session: string,
  call: string,
  word: 'allow' | 'deny',
  message: string | undefined,
  signal?: AbortSignal,
): Promise<AnswerReceipt> {
  const { approve, createSessionClient } = await loadDbosBinding();
  return withConsoleOnStderr(stderr, async () => {
    let client: Awaited<ReturnType<typeof createSessionClient>> | undefined;
    let aborted = false;
    const work = (async () => {
      try {
        client = await createSessionClient({
          systemDatabaseUrl: target.systemDatabaseUrl,
          ...(target.appName === undefined ? {} : { appName: target.appName }),
          ...(target.name === undefined ? {} : { name: target.name }),
        });
        if (aborted) throw signal?.reason;
        return await approve(client, session, call, word, message);
      } finally {
        // A failing teardown changes nothing for the user: the answer is in, or its error is on its way.
        await client?.close().catch(() => {});
      }
    })();
    if (signal === undefined) return work;
    work.catch(() => {});
    return new Promise<AnswerReceipt>((resolve, reject) => {
      const stop = () => {
        aborted = true;
        reject(signal.reason);
        void client?.close().catch(() => {});
      };
      if (signal.aborted) stop();
      else signal.addEventListener('abort', stop, { once: true });
      work.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
    });
  });
}
