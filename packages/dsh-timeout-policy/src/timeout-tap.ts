import {
  Cancellation,
  type DispatchOutcome,
  DshError,
  type ErrorOutcome,
  type ExecuteContext,
  type ExecuteTap,
  freezeJson,
  type Host,
  type JsonObject,
  type JsonValue,
  messageOf,
} from '@deepseek-ai/dsh-core';
import type { Deadline, DeadlineResolver } from './deadline.js';
import { TimeoutPolicyCode } from './errors.js';

/** What the tap needs besides the call. */
export interface TimeoutTapConfig {
  readonly name: string;
  readonly host: Host;
  readonly resolver: DeadlineResolver;
  readonly graceMs: number;
}

/**
 * The `tools/execute` tap: passes the inner chain a cancellation that follows
 * the outer one and carries the call's deadline. Core races the chain against
 * it (one shared timer for every deadline of the host), aborts it at the
 * deadline, and once aborted settles the call with this policy's outcome as
 * soon as the chain settles or the grace period ends.
 */
export function timeoutTap(config: TimeoutTapConfig): ExecuteTap {
  return (ctx, next) => {
    const deadline = config.resolver.resolve(ctx.tool, ctx.args);
    if (deadline === undefined) return next();
    return next({ cancellation: new DeadlineCancellation(config, ctx, deadline) });
  };
}

/** One call's cancellation under a deadline: the policy's error at the deadline and its outcome once aborted. */
class DeadlineCancellation extends Cancellation {
  readonly #config: TimeoutTapConfig;
  readonly #ctx: ExecuteContext;
  readonly #limit: Deadline;
  readonly #started: number;

  constructor(config: TimeoutTapConfig, ctx: ExecuteContext, limit: Deadline) {
    const started = performance.now();
    super({ deadline: started + limit.ms, parent: ctx.cancellation, graceMs: config.graceMs });
    this.#config = config;
    this.#ctx = ctx;
    this.#limit = limit;
    this.#started = started;
  }

  override deadlineReason(): DshError {
    const { ms, source } = this.#limit;
    const message = `"${this.#ctx.call.name}" did not finish within its ${ms} ms deadline, so it was stopped`;
    return new DshError(TimeoutPolicyCode.TOOL_TIMEOUT, message, { data: { deadlineMs: ms, elapsedMs: this.#elapsed(), source } });
  }

  override outcomeOnAbort(settled: DispatchOutcome | undefined): ErrorOutcome {
    const { host, name, graceMs } = this.#config;
    if (settled === undefined) {
      host.diagnostics.record(
        TimeoutPolicyCode.BODY_ABANDONED,
        `tap:tools/execute:${name}`,
        `"${this.#ctx.call.name}" had not settled ${graceMs} ms after it was aborted; the call was settled without it`,
        this.#ctx.call.id,
      );
    }
    return expiredOutcome(name, this, this.#limit, this.#elapsed(), settled);
  }

  #elapsed(): number {
    return Math.round(performance.now() - this.#started);
  }
}

/** The outcome of a call stopped by its deadline or by a cancellation from outside. */
function expiredOutcome(
  by: string,
  cancellation: Cancellation,
  deadline: Deadline,
  elapsedMs: number,
  body: DispatchOutcome | undefined,
): ErrorOutcome {
  const data: Record<string, JsonValue> = {
    cause: cancellation.expired ? 'deadline' : 'cancelled',
    deadlineMs: deadline.ms,
    elapsedMs,
    source: deadline.source,
    settled: body === undefined ? 'abandoned' : 'within-grace',
  };
  // The body's own answer (partial output, its error) helps the model, but only when it is JSON.
  if (body !== undefined && freezeJson(body) === undefined) data.body = body as unknown as JsonObject;
  const reason = cancellation.reason;
  if (DshError.isInstance(reason))
    return { status: 'error', stage: 'execute', by, error: { code: reason.code, message: reason.message, data } };
  const message = `the call was cancelled${reason === undefined ? '' : `: ${messageOf(reason)}`}`;
  return { status: 'error', stage: 'execute', by, error: { code: TimeoutPolicyCode.ABORTED, message, data } };
}
