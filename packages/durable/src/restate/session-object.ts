import type { JsonValue, StepResult } from '@deepseek-ai/dsh-core';
import * as restate from '@restatedev/restate-sdk';
import { DurableError, DurableErrorCode } from '../errors.js';
import { closing, isStepInput, type OpenedSession, openSessionHost, type SessionHostOptions, type StepInput } from '../session-setup.js';
import { restateDurable } from './restate-durable.js';

/** Options of {@link dshSessionObject}. */
export interface DshSessionObjectOptions extends SessionHostOptions {
  /**
   * The virtual object's name, the first segment of its ingress path: `dsh-session` by default.
   * Its approvals object is `<name>-approvals` (`approvalsObjectFor(name)`; `dsh-approvals` for
   * the default): bind that one beside it.
   */
  readonly name?: string;
}

function terminal(code: string, message: string): restate.TerminalError {
  // The code leads the message: it is what reaches an HTTP caller (see `sessionClient`).
  return new restate.TerminalError(`${code}: ${message}`, { errorCode: 400 });
}

async function openSession(ctx: restate.ObjectContext, options: DshSessionObjectOptions): Promise<OpenedSession> {
  const session = ctx.key;
  const bound = await ctx.get<string>('hostId');
  if (bound === null) ctx.set('hostId', options.hostId);
  else if (bound !== options.hostId) {
    throw terminal(
      DurableErrorCode.SESSION_HOST_MISMATCH,
      `session "${session}" belongs to host "${bound}"; this worker is host "${options.hostId}"`,
    );
  }
  try {
    const opened = await openSessionHost(session, restateDurable(ctx, session, options.name), options);
    // A suspended attempt (waiting for an approval) never returns from its handler: close its log when Restate ends it.
    ctx.request().attemptCompletedSignal.addEventListener('abort', () => void opened.close().catch(() => {}), { once: true });
    return opened;
  } catch (error) {
    // A wrong host is no passing failure: Restate must not retry it.
    if (error instanceof DurableError) throw terminal(error.code, error.message);
    throw error;
  }
}

/**
 * A dsh session as a Restate virtual object keyed by session id: one
 * exclusive invocation at a time per session (one writer), every tool body
 * and model turn a `ctx.run`, every `ask` an awakeable. Handlers:
 * - `step` `{ calls }` → the `StepResult` of `host.runStep` (one result per call);
 * - `run` (when `options.run` is given) → whatever the program returns.
 */
export function dshSessionObject(options: DshSessionObjectOptions) {
  const run = options.run;
  return restate.object({
    name: options.name ?? 'dsh-session',
    handlers: {
      step: async (ctx: restate.ObjectContext, input: StepInput): Promise<StepResult> => {
        if (!isStepInput(input)) throw terminal(DurableErrorCode.INVALID_INPUT, 'step: expected { calls: [{ id, name, args }] }');
        return closing(await openSession(ctx, options), ({ host }) => host.runStep({ calls: input.calls }));
      },
      run: async (ctx: restate.ObjectContext, input: JsonValue): Promise<JsonValue> => {
        if (run === undefined) throw terminal(DurableErrorCode.INVALID_INPUT, 'run: this session object has no program');
        return closing(await openSession(ctx, options), (session) => run(session, input));
      },
    },
  });
}
