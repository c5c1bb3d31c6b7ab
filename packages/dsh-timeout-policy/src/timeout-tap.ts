import {
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
import { markDeadline } from './deadline-signal.js';
import { TimeoutPolicyCode } from './errors.js';

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
 * The `tools/execute` tap: gives the inner chain a signal of its own that
 * follows the outer one and aborts at the deadline, then settles the call
 * once the inner chain settles or the grace period ends, whichever is first.
 */
export function timeoutTap(config: TimeoutTapConfig): ExecuteTap {
  return (ctx, next) => {
    const deadline = config.resolver.resolve(ctx.tool, ctx.args);
    if (deadline === undefined) return next();
    return guard(config, ctx, next, deadline);
  };
}

function guard(config: TimeoutTapConfig, ctx: ExecuteContext, next: ExecuteNext, deadline: Deadline): Promise<DispatchOutcome> {
  const { host, graceMs, name } = config;
  const source = `tap:tools/execute:${name}`;
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  const controller = new AbortController();
  markDeadline(controller.signal, started + deadline.ms);

  return new Promise<DispatchOutcome>((resolve) => {
    let settled = false;
    let expiry: Expiry | undefined;
    let grace: ReturnType<typeof setTimeout> | undefined;

    const finish = (outcome: DispatchOutcome): void => {
      settled = true;
      clearTimeout(timer);
      if (grace !== undefined) clearTimeout(grace);
      ctx.signal.removeEventListener('abort', onCancel);
      resolve(outcome);
    };
    const expire = (why: Expiry): void => {
      if (settled || expiry !== undefined) return;
      expiry = why;
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onCancel);
      controller.abort(why.reason);
      grace = setTimeout(() => {
        if (settled) return;
        host.diagnostics.record(
          TimeoutPolicyCode.BODY_ABANDONED,
          source,
          `"${ctx.call.name}" had not settled ${graceMs} ms after it was aborted; the call was settled without it`,
          ctx.call.id,
        );
        finish(expiredOutcome(name, why, deadline, elapsed(), undefined));
      }, graceMs);
    };
    const onCancel = (): void => expire({ kind: 'cancelled', reason: ctx.signal.reason });
    // Deliberately not unref'd: this timer is what guarantees the step settles.
    const timer = setTimeout(() => {
      const message = `"${ctx.call.name}" did not finish within its ${deadline.ms} ms deadline, so it was stopped`;
      expire({
        kind: 'deadline',
        reason: new DshError(TimeoutPolicyCode.TOOL_TIMEOUT, message, {
          data: { deadlineMs: deadline.ms, elapsedMs: elapsed(), source: deadline.source },
        }),
      });
    }, deadline.ms);

    const settle = (outcome: DispatchOutcome): void => {
      if (settled) {
        host.diagnostics.record(
          TimeoutPolicyCode.LATE_SETTLEMENT,
          source,
          `"${ctx.call.name}" settled ${outcome.status} ${elapsed()} ms after it started, after the call had been settled without it; the result was discarded`,
          ctx.call.id,
        );
        return;
      }
      finish(expiry === undefined ? outcome : expiredOutcome(name, expiry, deadline, elapsed(), outcome));
    };

    if (ctx.signal.aborted) onCancel();
    else ctx.signal.addEventListener('abort', onCancel, { once: true });
    let inner: PromiseLike<DispatchOutcome>;
    try {
      inner = next({ signal: controller.signal });
    } catch (error) {
      inner = Promise.reject(error);
    }
    Promise.resolve(inner).then(settle, (error: unknown) => settle(failedOutcome(name, error)));
  });
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
