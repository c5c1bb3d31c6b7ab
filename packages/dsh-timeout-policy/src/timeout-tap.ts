import {
  Cancellation,
  type DispatchOutcome,
  DshError,
  type ErrorOutcome,
  type ExecuteContext,
  type ExecuteNext,
  type ExecuteTap,
  freezeJson,
  type Host,
  type JsonObject,
  type JsonValue,
  messageOf,
} from '@deepseek-ai/dsh-core';
import type { Deadline, DeadlineResolver } from './deadline.js';
import { TimeoutPolicyCode } from './errors.js';
import { DeadlineTimer, type TimerEntry } from './internal/deadline-timer.js';

/** What the tap needs besides the call. */
export interface TimeoutTapConfig {
  readonly name: string;
  readonly host: Host;
  readonly resolver: DeadlineResolver;
  readonly graceMs: number;
}

/** How a guarded call stopped early: its own deadline, or a cancellation from outside. */
type Expiry = { readonly kind: 'deadline'; readonly reason: DshError } | { readonly kind: 'cancelled'; readonly reason: unknown };

/**
 * The `tools/execute` tap: gives the inner chain a cancellation of its own
 * that follows the outer one, carries the deadline and aborts at it, then
 * settles the call once the inner chain settles or the grace period ends,
 * whichever is first. All calls share one timer.
 */
export function timeoutTap(config: TimeoutTapConfig): ExecuteTap {
  const timer = new DeadlineTimer();
  return (ctx, next) => {
    const deadline = config.resolver.resolve(ctx.tool, ctx.args);
    if (deadline === undefined) return next();
    return new GuardedCall(config, timer, ctx, deadline).run(next);
  };
}

/** One call under a deadline; a class, so a call costs one object rather than a closure per event. */
class GuardedCall {
  readonly #config: TimeoutTapConfig;
  readonly #timer: DeadlineTimer;
  readonly #ctx: ExecuteContext;
  readonly #deadline: Deadline;
  readonly #started = performance.now();
  readonly #inner: Cancellation;
  #entry: TimerEntry | undefined;
  #unfollow: (() => void) | undefined;
  #resolve: (outcome: DispatchOutcome) => void = () => undefined;
  #settled = false;
  #expiry: Expiry | undefined;
  #grace: ReturnType<typeof setTimeout> | undefined;

  constructor(config: TimeoutTapConfig, timer: DeadlineTimer, ctx: ExecuteContext, deadline: Deadline) {
    this.#config = config;
    this.#timer = timer;
    this.#ctx = ctx;
    this.#deadline = deadline;
    this.#inner = new Cancellation({ deadline: this.#started + deadline.ms });
  }

  run(next: ExecuteNext): Promise<DispatchOutcome> {
    const settled = new Promise<DispatchOutcome>((resolve) => {
      this.#resolve = resolve;
    });
    this.#entry = this.#timer.schedule(this.#started + this.#deadline.ms, this);
    this.#unfollow = this.#ctx.cancellation.onAbort(() => this.#expire({ kind: 'cancelled', reason: this.#ctx.cancellation.reason }));
    let pending: PromiseLike<DispatchOutcome>;
    try {
      pending = next({ cancellation: this.#inner });
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(
      (outcome) => this.#settle(outcome),
      (error: unknown) => this.#settle(failedOutcome(this.#config.name, error)),
    );
    return settled;
  }

  /** The deadline passed (called by the shared timer). */
  fire(): void {
    const { ms, source } = this.#deadline;
    const message = `"${this.#ctx.call.name}" did not finish within its ${ms} ms deadline, so it was stopped`;
    this.#expire({
      kind: 'deadline',
      reason: new DshError(TimeoutPolicyCode.TOOL_TIMEOUT, message, { data: { deadlineMs: ms, elapsedMs: this.#elapsed(), source } }),
    });
  }

  #elapsed(): number {
    return Math.round(performance.now() - this.#started);
  }

  #expire(why: Expiry): void {
    if (this.#settled || this.#expiry !== undefined) return;
    this.#expiry = why;
    if (this.#entry !== undefined) this.#timer.cancel(this.#entry);
    this.#inner.abort(why.reason);
    this.#grace = setTimeout(() => {
      if (this.#settled) return;
      const { host, name, graceMs } = this.#config;
      host.diagnostics.record(
        TimeoutPolicyCode.BODY_ABANDONED,
        `tap:tools/execute:${name}`,
        `"${this.#ctx.call.name}" had not settled ${graceMs} ms after it was aborted; the call was settled without it`,
        this.#ctx.call.id,
      );
      this.#finish(expiredOutcome(name, why, this.#deadline, this.#elapsed(), undefined));
    }, this.#config.graceMs);
  }

  #settle(outcome: DispatchOutcome): void {
    if (this.#settled) {
      const { host, name } = this.#config;
      host.diagnostics.record(
        TimeoutPolicyCode.LATE_SETTLEMENT,
        `tap:tools/execute:${name}`,
        `"${this.#ctx.call.name}" settled ${outcome.status} ${this.#elapsed()} ms after it started, after the call had been settled without it; the result was discarded`,
        this.#ctx.call.id,
      );
      return;
    }
    const expiry = this.#expiry;
    this.#finish(expiry === undefined ? outcome : expiredOutcome(this.#config.name, expiry, this.#deadline, this.#elapsed(), outcome));
  }

  #finish(outcome: DispatchOutcome): void {
    this.#settled = true;
    if (this.#entry !== undefined) this.#timer.cancel(this.#entry);
    this.#unfollow?.();
    if (this.#grace !== undefined) clearTimeout(this.#grace);
    this.#resolve(outcome);
  }
}

/** The outcome of a call stopped by its deadline or by a cancellation. */
function expiredOutcome(
  by: string,
  expiry: Expiry,
  deadline: Deadline,
  elapsedMs: number,
  body: DispatchOutcome | undefined,
): ErrorOutcome {
  const data: Record<string, JsonValue> = {
    cause: expiry.kind,
    deadlineMs: deadline.ms,
    elapsedMs,
    source: deadline.source,
    settled: body === undefined ? 'abandoned' : 'within-grace',
  };
  // The body's own answer (partial output, its error) helps the model, but only when it is JSON.
  if (body !== undefined && freezeJson(body) === undefined) data.body = body as unknown as JsonObject;
  if (expiry.kind === 'deadline') {
    return { status: 'error', stage: 'execute', by, error: { code: TimeoutPolicyCode.TOOL_TIMEOUT, message: expiry.reason.message, data } };
  }
  const reason = expiry.reason;
  const code = DshError.isInstance(reason) ? reason.code : TimeoutPolicyCode.ABORTED;
  const message = DshError.isInstance(reason)
    ? reason.message
    : `the call was cancelled${reason === undefined ? '' : `: ${messageOf(reason)}`}`;
  return { status: 'error', stage: 'execute', by, error: { code, message, data } };
}

function failedOutcome(by: string, error: unknown): ErrorOutcome {
  return { status: 'error', stage: 'execute', by, error: { code: 'TOOL_FAILED', message: `the call failed: ${messageOf(error)}` } };
}
