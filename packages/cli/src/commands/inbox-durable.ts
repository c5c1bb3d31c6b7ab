// `dsh inbox --durable restate|dbos`: the inbox's answer target for the sessions of a durable
// engine, filled with the same clients `dsh approve` uses (Restate's ingress client, DBOS's system
// database client, loaded on demand). The inbox itself knows nothing of the engines.
import { defaultReceiptTimeoutMs, approve as restateApprove } from '@deepseek-ai/dsh-durable/restate/client';
import type { AnswerTarget } from '@deepseek-ai/dsh-inbox';
import { CliError, CliErrorCode } from '../errors.js';
import type { CliIo } from '../io.js';
import { defaultApproveTimeoutSeconds, defaultIngressUrl } from './approve.js';
import { approveOnDbos, type DbosTarget, withoutPassword } from './approve-dbos.js';

/** Which engine runs the folder's sessions, and how to reach it (the flags of `dsh approve`). */
export interface DurableInboxOptions {
  /** `restate` or `dbos`, as typed. */
  readonly durable: string;
  /** The Restate ingress; else `DSH_RESTATE_INGRESS`, else `http://127.0.0.1:8080`. */
  readonly ingress?: string;
  /** The Restate session object's name, when not `dsh-session`. */
  readonly object?: string;
  /** The DBOS system database; else `DSH_DBOS_DATABASE_URL`. */
  readonly dbos?: string;
  readonly dbosApp?: string;
  readonly dbosName?: string;
}

/** The answer target of `--durable`: every page answer goes to the engine, which keeps the first. */
export function durableAnswerTarget(io: CliIo, options: DurableInboxOptions): { target: AnswerTarget; source: 'restate' | 'dbos' } {
  const timeoutMs = defaultApproveTimeoutSeconds * 1000;
  if (options.durable === 'restate') {
    if (options.dbos !== undefined || options.dbosApp !== undefined || options.dbosName !== undefined) {
      throw usage('--dbos, --dbos-app and --dbos-name are for --durable dbos');
    }
    const ingressUrl = options.ingress ?? io.env.DSH_RESTATE_INGRESS ?? defaultIngressUrl;
    const client = { ingressUrl, ...(options.object === undefined ? {} : { objectName: options.object }) };
    return {
      source: 'restate',
      target: {
        label: `Restate at ${ingressUrl}`,
        deliver: (session, call, word, message) =>
          restateApprove(
            { ...client, signal: AbortSignal.timeout(timeoutMs), receiptTimeoutMs: Math.min(defaultReceiptTimeoutMs, timeoutMs / 2) },
            session,
            call,
            word,
            message,
          ),
      },
    };
  }
  if (options.durable === 'dbos') {
    if (options.ingress !== undefined || options.object !== undefined) throw usage('--ingress and --object are for --durable restate');
    const url = options.dbos ?? (io.env.DSH_DBOS_DATABASE_URL === '' ? undefined : io.env.DSH_DBOS_DATABASE_URL);
    if (url === undefined) throw usage('--durable dbos needs the system database: --dbos URL (or DSH_DBOS_DATABASE_URL)');
    const target: DbosTarget = {
      systemDatabaseUrl: url,
      ...(options.dbosApp === undefined ? {} : { appName: options.dbosApp }),
      ...(options.dbosName === undefined ? {} : { name: options.dbosName }),
    };
    return {
      source: 'dbos',
      target: {
        label: `DBOS on ${withoutPassword(url)}`,
        deliver: (session, call, word, message) =>
          approveOnDbos(io.stderr, target, session, call, word, message, AbortSignal.timeout(timeoutMs)),
      },
    };
  }
  throw usage(`--durable must be restate or dbos, not "${options.durable}"`);
}

function usage(message: string): CliError {
  return new CliError(CliErrorCode.USAGE, `inbox: ${message}`);
}
