import { type AnswerReceipt, approve, defaultReceiptTimeoutMs } from '@deepseek-ai/dsh-durable/restate/client';
import { CliError, CliErrorCode } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { approveOnDbos, type DbosTarget, withoutPassword } from './approve-dbos.js';

/** The Restate ingress `dsh approve` posts to when neither `--ingress` nor `DSH_RESTATE_INGRESS` says otherwise. */
export const defaultIngressUrl = 'http://127.0.0.1:8080';

/** How long `dsh approve` waits for the engine, in seconds, when `--timeout` does not say. */
export const defaultApproveTimeoutSeconds = 30;

/** Options of `dsh approve`. */
export interface ApproveOptions {
  readonly session: string;
  readonly call: string;
  readonly word: 'allow' | 'deny';
  /** Shown to the model with a deny (and logged with an allow). */
  readonly message?: string;
  /** The Restate ingress; else `DSH_RESTATE_INGRESS`, else {@link defaultIngressUrl}. */
  readonly ingress?: string;
  /** The Restate session object's name, when not `dsh-session`: its approvals object holds the question. */
  readonly object?: string;
  /** The DBOS system database (else `DSH_DBOS_DATABASE_URL`): the answer goes to DBOS instead of Restate. */
  readonly dbos?: string;
  /** The DBOS application name of the workers, when not the durable package's default. */
  readonly dbosApp?: string;
  /** The DBOS session definition's name, when not the durable package's default. */
  readonly dbosName?: string;
  /** `--timeout`: seconds to wait for the engine ({@link defaultApproveTimeoutSeconds} by default). */
  readonly timeout?: string;
  readonly json: boolean;
}

/** The engine an answer goes to. */
type Engine =
  | { readonly kind: 'restate'; readonly ingressUrl: string; readonly objectName?: string }
  | { readonly kind: 'dbos'; readonly target: DbosTarget };

const said: Readonly<Record<AnswerReceipt['status'], string>> = {
  delivered: 'delivered: the waiting call has it',
  kept: 'kept: the call has not asked yet (or its worker is down); it gets this answer when it does',
  'already-answered': 'not applied: an earlier answer stands (the first answer is final)',
};

/**
 * `dsh approve SESSION CALL allow|deny`: answers the approval a durable
 * session's call waits on (`@deepseek-ai/dsh-durable` on Restate, or on DBOS
 * with `--dbos`), whether or not a worker runs now. Exits 0 when this answer
 * counts, 1 when an earlier one stands, 6 when the engine cannot be reached,
 * refuses, or has not answered within `--timeout`.
 */
export async function runApprove(io: CliIo, options: ApproveOptions): Promise<ExitCode> {
  const timeoutMs = timeoutMsOf(options.timeout);
  const engine = engineOf(options, io.env);
  const deadline = AbortSignal.timeout(timeoutMs);
  let receipt: AnswerReceipt;
  try {
    receipt =
      engine.kind === 'restate'
        ? await approve(
            // The receipt wait is a part of the whole: a worker too slow to say `delivered` in it means `kept`.
            {
              ingressUrl: engine.ingressUrl,
              ...(engine.objectName === undefined ? {} : { objectName: engine.objectName }),
              signal: deadline,
              receiptTimeoutMs: Math.min(defaultReceiptTimeoutMs, timeoutMs / 2),
            },
            options.session,
            options.call,
            options.word,
            options.message,
          )
        : await approveOnDbos(io.stderr, engine.target, options.session, options.call, options.word, options.message, deadline);
  } catch (error) {
    if (deadline.aborted) throw timeoutError(timeoutMs, engine);
    throw engineError(error, engine);
  }
  if (options.json) {
    io.stdout.write(`${JSON.stringify({ session: options.session, call: options.call, answer: options.word, ...receipt })}\n`);
  } else {
    io.stdout.write(`${options.word} for call ${options.call} of session ${options.session}: ${said[receipt.status]}\n`);
  }
  return receipt.status === 'already-answered' ? ExitCode.EXPECTATION_FAILED : ExitCode.OK;
}

/**
 * Restate unless a DBOS database is named: `--dbos`, else `DSH_DBOS_DATABASE_URL`
 * (an explicit `--ingress` outranks that variable, as flags outrank the environment).
 */
function engineOf(options: ApproveOptions, env: NodeJS.ProcessEnv): Engine {
  if (options.dbos !== undefined && options.ingress !== undefined) {
    throw new CliError(CliErrorCode.USAGE, 'approve: --ingress (Restate) and --dbos (DBOS) name two engines: give one');
  }
  const fromEnv = env.DSH_DBOS_DATABASE_URL === '' ? undefined : env.DSH_DBOS_DATABASE_URL;
  const dbosUrl = options.dbos ?? (options.ingress === undefined ? fromEnv : undefined);
  if (dbosUrl === undefined) {
    const dbosFlag = options.dbosApp !== undefined ? '--dbos-app' : options.dbosName !== undefined ? '--dbos-name' : undefined;
    if (dbosFlag !== undefined) {
      throw new CliError(CliErrorCode.USAGE, `approve: ${dbosFlag} is for DBOS: it needs --dbos URL (or DSH_DBOS_DATABASE_URL)`);
    }
    return {
      kind: 'restate',
      ingressUrl: options.ingress ?? env.DSH_RESTATE_INGRESS ?? defaultIngressUrl,
      ...(options.object === undefined ? {} : { objectName: options.object }),
    };
  }
  if (options.object !== undefined) {
    throw new CliError(CliErrorCode.USAGE, 'approve: --object names a Restate session object; on DBOS use --dbos-name');
  }
  if (!isPostgresUrl(dbosUrl)) {
    const source = options.dbos === undefined ? 'DSH_DBOS_DATABASE_URL' : '--dbos';
    throw new CliError(CliErrorCode.USAGE, `approve: ${source} must be a PostgreSQL URL (postgresql://user@host:5432/database)`);
  }
  return {
    kind: 'dbos',
    target: {
      systemDatabaseUrl: dbosUrl,
      ...(options.dbosApp === undefined ? {} : { appName: options.dbosApp }),
      ...(options.dbosName === undefined ? {} : { name: options.dbosName }),
    },
  };
}

/** `--timeout` in ms: a positive number of seconds, else a usage error. */
function timeoutMsOf(text: string | undefined): number {
  if (text === undefined) return defaultApproveTimeoutSeconds * 1000;
  const seconds = Number(text);
  if (text.trim() === '' || !Number.isFinite(seconds) || seconds <= 0) {
    throw new CliError(CliErrorCode.USAGE, `approve: --timeout must be a positive number of seconds, not "${text}"`);
  }
  return seconds * 1000;
}

/** The engine took no decision we saw in time: the answer may have been taken, and answering again tells. */
function timeoutError(timeoutMs: number, engine: Engine): CliError {
  return new CliError(
    CliErrorCode.ENGINE_TIMEOUT,
    `approve: the engine did not answer within ${timeoutMs / 1000} s (--timeout); the answer may or may not have been taken: ` +
      `run dsh approve again, which says already-answered if it was (${whereOf(engine, false)})`,
  );
}

function isPostgresUrl(text: string): boolean {
  try {
    return ['postgres:', 'postgresql:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

/** The CLI error for what the durable client threw: the same codes and exits on both engines. */
function engineError(error: unknown, engine: Engine): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'INVALID_INPUT' || code === 'INVALID_OPTIONS') return new CliError(CliErrorCode.USAGE, `approve: ${message}`);
  if (code === 'ENGINE_UNREACHABLE' || code === 'ENGINE_ERROR') {
    return new CliError(CliErrorCode.ENGINE_UNAVAILABLE, `approve: ${message} (${whereOf(engine, code === 'ENGINE_ERROR')})`);
  }
  return error;
}

/** Where the answer went and which flags and variables set that, for an engine error. */
function whereOf(engine: Engine, refused: boolean): string {
  if (engine.kind === 'restate') return `the Restate ingress: --ingress, DSH_RESTATE_INGRESS, now ${engine.ingressUrl}`;
  // A database that answers but refuses may hold other workers than the names say: name those flags too.
  const names = refused ? "; the workers' names: --dbos-app, --dbos-name" : '';
  return `the DBOS system database: --dbos, DSH_DBOS_DATABASE_URL, now ${withoutPassword(engine.target.systemDatabaseUrl)}${names}`;
}
