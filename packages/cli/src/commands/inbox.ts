import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { DshError, messageOf } from '@deepseek-ai/dsh-core';
import { createInbox, type Inbox } from '@deepseek-ai/dsh-inbox';
import type { PermissionPrompt, PermissionPromptRequest } from '@deepseek-ai/dsh-permissions';
import { CliError, CliErrorCode } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { type DurableInboxOptions, durableAnswerTarget } from './inbox-durable.js';

/** Options of `dsh inbox`. */
export interface InboxCommandOptions {
  /** The folder of session logs: `~/.dsh/sessions` (where `dsh run` writes) by default. */
  readonly logs?: string;
  /** The port, as typed: a whole number from 0 (any free port) to 65535. */
  readonly port?: string;
  /** The address to bind: 127.0.0.1 by default. */
  readonly host?: string;
  /** Ends the command (tests, embedders); SIGINT and SIGTERM end it too. */
  readonly signal?: AbortSignal;
  /**
   * `--durable restate|dbos` and the engine's flags: the folder (`--logs`, required then) is a
   * durable worker's `logDir`, and the page answers its approvals through the engine.
   */
  readonly durable?: DurableInboxOptions;
  /** Called with the URL once the inbox serves (tests, embedders): it is also printed. */
  readonly onListening?: (url: string) => void;
}

/**
 * `dsh inbox`: the approval inbox on a folder of session logs. Prints the
 * URL with its token once, then serves until Ctrl-C (exit 0).
 */
export async function runInbox(io: CliIo, options: InboxCommandOptions): Promise<ExitCode> {
  if (options.durable !== undefined && options.logs === undefined) {
    throw new CliError(CliErrorCode.USAGE, "inbox: --durable needs --logs DIR, the folder the workers' logDir names");
  }
  const durable = options.durable === undefined ? undefined : durableAnswerTarget(io, options.durable);
  const dir = options.logs === undefined ? join(io.env.HOME ?? homedir(), '.dsh', 'sessions') : resolve(io.cwd, options.logs);
  const inbox = makeInbox('inbox', options);
  const url = await listen('inbox', inbox, options);
  try {
    // A folder not there yet is reported on the page and picked up when `dsh run` creates it.
    await inbox.watchLogs(dir, durable === undefined ? {} : { source: durable.source, answers: durable.target });
    const s = io.style;
    const what = durable === undefined ? '' : `, answered through ${durable.target.label}`;
    io.stdout.write(`${s.bold('dsh inbox')} ${s.dim(`— the session logs in ${dir}${what}`)}\n`);
    io.stdout.write(
      `${s.dim('open:')} ${url}\n${s.dim('(the link holds the secret token: share it only with who may answer; Ctrl-C stops)')}\n`,
    );
    options.onListening?.(url);
    await untilStopped(options.signal);
  } finally {
    await inbox.close();
  }
  return ExitCode.OK;
}

/** `dsh run --inbox`: an inbox for the running agent, listening on 127.0.0.1 (its `url` holds the token: print it once). */
export async function openRunInbox(): Promise<Inbox> {
  const inbox = makeInbox('run', {});
  await listen('run', inbox, {});
  return inbox;
}

/**
 * The prompt of `dsh run --inbox`: the call waits in the page and, when
 * there is a terminal, at the terminal too. The first answer wins; the
 * other side is withdrawn (its question cancelled) through the signal it got.
 */
export function inboxPrompt(inbox: Inbox, terminal: PermissionPrompt | undefined, onInboxAnswer?: () => void): PermissionPrompt {
  const page = inbox.prompt as unknown as PermissionPrompt;
  if (terminal === undefined) return page;
  return async (request) => {
    const pageSide = new AbortController();
    const terminalSide = new AbortController();
    const follow = (): void => {
      pageSide.abort(request.signal.reason);
      terminalSide.abort(request.signal.reason);
    };
    if (request.signal.aborted) follow();
    else request.signal.addEventListener('abort', follow, { once: true });
    const onSide = (signal: AbortSignal): PermissionPromptRequest => ({ ...request, signal });
    try {
      return await new Promise<Awaited<ReturnType<PermissionPrompt>>>((done, fail) => {
        Promise.resolve(page(onSide(pageSide.signal))).then((reply) => {
          if (pageSide.signal.aborted) return;
          terminalSide.abort(new DshError('ABORTED', 'answered in the inbox'));
          onInboxAnswer?.();
          done(reply);
        }, fail);
        Promise.resolve(terminal(onSide(terminalSide.signal))).then((reply) => {
          if (terminalSide.signal.aborted) return;
          pageSide.abort(new DshError('ABORTED', 'answered at the terminal'));
          done(reply);
        }, fail);
      });
    } finally {
      request.signal.removeEventListener('abort', follow);
    }
  };
}

function makeInbox(command: string, options: InboxCommandOptions): Inbox {
  const port = parsePort(command, options.port);
  try {
    return createInbox({ ...(options.host === undefined ? {} : { host: options.host }), port });
  } catch (error) {
    throw new CliError(CliErrorCode.USAGE, `${command}: ${messageOf(error)}`, { cause: error });
  }
}

async function listen(command: string, inbox: Inbox, options: InboxCommandOptions): Promise<string> {
  try {
    return await inbox.listen();
  } catch (error) {
    const where = `${options.host ?? '127.0.0.1'}:${options.port ?? '0'}`;
    throw new CliError(CliErrorCode.USAGE, `${command}: cannot serve the inbox on ${where}: ${messageOf(error)}`, { cause: error });
  }
}

function parsePort(command: string, given: string | undefined): number {
  if (given === undefined) return 0;
  const port = /^\d{1,5}$/.test(given) ? Number(given) : Number.NaN;
  if (!(port >= 0 && port <= 65_535)) {
    throw new CliError(CliErrorCode.USAGE, `${command}: --port must be a whole number from 0 to 65535, not "${given}"`);
  }
  return port;
}

function untilStopped(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((done) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      signal?.removeEventListener('abort', stop);
      done();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    if (signal?.aborted === true) stop();
    else signal?.addEventListener('abort', stop, { once: true });
  });
}
