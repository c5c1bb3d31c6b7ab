import type { Host, JsonValue, StepCall, StepResult } from '@deepseek-ai/dsh-core';
import * as restate from '@restatedev/restate-sdk';
import type { Durable } from '../durable.js';
import { attachDurable, type DurableCreateHostOptions, type DurableHostOptions, durableCreateHostOptions } from '../durable-host.js';
import { DurableErrorCode } from '../errors.js';
import { restateDurable } from './restate-durable.js';

/** What the host factory gets: the session id and the `createHost` options it must pass on. */
export interface SessionSetup {
  readonly session: string;
  /** Spread into `createHost`: without them an `ask` is not durable (and, with no provider, denied). */
  readonly hostOptions: DurableCreateHostOptions & { readonly session: string };
  readonly durable: Durable;
}

/** What a session program (the `run` handler) gets. */
export interface SessionRun {
  readonly session: string;
  readonly host: Host;
  readonly durable: Durable;
}

/** Options of {@link dshSessionObject}. */
export interface DshSessionObjectOptions extends DurableHostOptions {
  /** The virtual object's name, the first segment of its ingress path: `dsh-session` by default. */
  readonly name?: string;
  /**
   * Names this host configuration (tools, plugins, policies). A session is
   * bound to the first `hostId` that runs it; a later call from a worker
   * with another one fails with `SESSION_HOST_MISMATCH` instead of mixing
   * two configurations in one journal.
   */
  readonly hostId: string;
  /** Builds a fresh host for one attempt; called on every attempt, so it must not touch the world. */
  readonly createHost: (setup: SessionSetup) => Host | Promise<Host>;
  /** A session program (an agent loop) served as the `run` handler; wrap its model with `durableModel`. */
  readonly run?: (run: SessionRun, input: JsonValue) => Promise<JsonValue>;
}

/** The input of the `step` handler: one assistant message's tool calls. */
export interface StepInput {
  readonly calls: readonly StepCall[];
}

function terminal(code: string, message: string): restate.TerminalError {
  // The code leads the message: it is what reaches an HTTP caller (see `sessionClient`).
  return new restate.TerminalError(`${code}: ${message}`, { errorCode: 400 });
}

function isStepInput(value: unknown): value is StepInput {
  if (typeof value !== 'object' || value === null || !Array.isArray((value as StepInput).calls)) return false;
  return (value as StepInput).calls.every(
    (call) => typeof call === 'object' && call !== null && typeof call.id === 'string' && typeof call.name === 'string',
  );
}

async function openSession(ctx: restate.ObjectContext, options: DshSessionObjectOptions): Promise<SessionRun> {
  const session = ctx.key;
  const bound = await ctx.get<string>('hostId');
  if (bound === null) ctx.set('hostId', options.hostId);
  else if (bound !== options.hostId) {
    throw terminal(
      DurableErrorCode.SESSION_HOST_MISMATCH,
      `session "${session}" belongs to host "${bound}"; this worker is host "${options.hostId}"`,
    );
  }
  const durable = restateDurable(ctx, session);
  const hostOptions = { ...durableCreateHostOptions(durable, options), session };
  const host = await options.createHost({ session, hostOptions, durable });
  if (host.session !== session) {
    throw terminal(DurableErrorCode.SESSION_ID_MISMATCH, `the host's session is "${host.session}", the engine runs "${session}"`);
  }
  attachDurable(host, durable, options);
  return { session, host, durable };
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
        const { host } = await openSession(ctx, options);
        return host.runStep({ calls: input.calls });
      },
      run: async (ctx: restate.ObjectContext, input: JsonValue): Promise<JsonValue> => {
        if (run === undefined) throw terminal(DurableErrorCode.INVALID_INPUT, 'run: this session object has no program');
        return run(await openSession(ctx, options), input);
      },
    },
  });
}
