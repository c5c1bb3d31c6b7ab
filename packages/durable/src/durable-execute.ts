import {
  type AnyToolDefinition,
  type CallIdentity,
  type DispatchOutcome,
  ErrorCode,
  type ErrorOutcome,
  type ExecuteTap,
  interruptedCallMessage,
} from '@deepseek-ai/dsh-core';
import { type Durable, idempotencyKey } from './durable.js';
import { Turns } from './internal/turns.js';

/**
 * Which tools are safe to run again after an interruption: a list of tool
 * names, or a predicate. By default a tool is idempotent when its definition
 * says `idempotent: true` (tool-fs marks its reads and searches so).
 */
export type IdempotentTools = readonly string[] | ((tool: AnyToolDefinition) => boolean);

/** The name the execute tap is registered under; it names the stage in an interrupted outcome. */
export const durableTapName = 'durable';

/** Turns the option into one predicate. */
export function idempotentPredicate(tools: IdempotentTools | undefined): (tool: AnyToolDefinition) => boolean {
  if (tools === undefined) return (tool) => tool.idempotent === true;
  if (typeof tools === 'function') return tools;
  const names = new Set(tools);
  return (tool) => names.has(tool.name);
}

/** The outcome of a non-idempotent call whose body an earlier attempt started and never journaled as finished. */
export function interruptedOutcome(session: string, call: CallIdentity): ErrorOutcome {
  return {
    status: 'error',
    stage: 'execute',
    by: durableTapName,
    error: {
      code: ErrorCode.TOOL_INTERRUPTED,
      message: interruptedCallMessage,
      data: { idempotencyKey: idempotencyKey(session, call.id) },
    },
  };
}

/**
 * A `tools/execute` tap that runs each tool body (and the taps inside it) as
 * one durable step named by the call's idempotency key. An idempotent tool
 * costs one step and simply runs again when an attempt died mid-body. Any
 * other tool first journals a "started" marker holding the attempt id: when
 * a later attempt finds the marker from another attempt and no finished body,
 * the body's step records {@link interruptedOutcome} instead of running it.
 * Register it outermost-but-one (after nothing that must run per attempt),
 * so timeouts and retries inside it are part of the step.
 *
 * Engines number steps in the order they are asked for. Calls ask for their
 * steps one call at a time, in the order they reach this tap, so a call's
 * marker and body are neighbours in the journal: parallel calls then replay
 * in the same order whatever their markers' round trips took.
 */
export function durableExecuteTap(durable: Durable, idempotent?: IdempotentTools): ExecuteTap {
  const isIdempotent = idempotentPredicate(idempotent);
  const turns = new Turns();
  return async (ctx, next) => {
    const key = idempotencyKey(ctx.session, ctx.call.id);
    const done = await turns.take();
    if (isIdempotent(ctx.tool)) {
      const body = durable.step<DispatchOutcome>(`tool ${key}`, () => next());
      done();
      return body;
    }
    let body: Promise<DispatchOutcome>;
    try {
      const startedBy = await durable.step<string>(`started ${key}`, async () => durable.attempt);
      body = durable.step<DispatchOutcome>(`tool ${key}`, async () =>
        startedBy === durable.attempt ? next() : interruptedOutcome(ctx.session, ctx.call),
      );
    } finally {
      done();
    }
    return body;
  };
}
