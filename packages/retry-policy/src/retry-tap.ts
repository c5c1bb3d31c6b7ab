import {
  type AnyToolDefinition,
  type DispatchOutcome,
  DshError,
  type ErrorOutcome,
  type ExecuteContext,
  type ExecuteNext,
  type ExecuteTap,
  type Host,
  messageOf,
  toolNameMatcher,
} from '@deepseek-ai/dsh-core';
import { backoffDelay } from './backoff.js';
import { RetryPolicyCode } from './errors.js';
import type { RetryAttemptData } from './events.js';
import type { ResolvedRetryPolicyOptions } from './options.js';

/** What the tap needs besides the call. */
export interface RetryTapConfig {
  readonly name: string;
  readonly host: Host;
  readonly options: ResolvedRetryPolicyOptions;
}

/**
 * The `tools/execute` tap: runs the inner chain again after a retryable
 * error, for idempotent tools only, within the attempts, the backoff and the
 * deadline an outer tap set on the cancellation. Only `ok` and `error` outcomes
 * exist here: a denied call never dispatches and a block comes later, so
 * neither can be retried.
 */
export function retryTap(config: RetryTapConfig): ExecuteTap {
  const { options } = config;
  const declared = toolNameMatcher(options.idempotentTools.map((p) => [p, true] as const));
  const excluded = toolNameMatcher(options.excludeTools.map((p) => [p, true] as const));
  const retryOn = new Set(options.retryOn);
  // Options and tool definitions never change: whether a tool is eligible is worked out once per tool.
  const eligibility = new WeakMap<AnyToolDefinition, boolean>();
  const eligible = (tool: AnyToolDefinition): boolean => {
    let known = eligibility.get(tool);
    if (known === undefined) {
      known = (tool.idempotent === true || declared.lookup(tool.name) === true) && excluded.lookup(tool.name) !== true;
      eligibility.set(tool, known);
    }
    return known;
  };
  return (ctx, next) => {
    if (options.maxAttempts === 1 || !eligible(ctx.tool)) return next();
    // The first attempt costs one `then`; the retry loop starts only after a retryable error.
    const started = performance.now();
    return next().then((outcome) =>
      outcome.status === 'error' && retryOn.has(outcome.error.code) ? attempts(config, retryOn, ctx, next, outcome, started) : outcome,
    );
  };
}

async function attempts(
  config: RetryTapConfig,
  retryOn: ReadonlySet<string>,
  ctx: ExecuteContext,
  next: ExecuteNext,
  first: DispatchOutcome,
  firstStarted: number,
): Promise<DispatchOutcome> {
  const { host, options, name } = config;
  for (let attempt = 1; ; attempt += 1) {
    const started = attempt === 1 ? firstStarted : performance.now();
    const outcome = attempt === 1 ? first : await next();
    // A denial (from a tap or a vetoed gate inside the body) is final: never retried.
    if (outcome.status !== 'error' || !retryOn.has(outcome.error.code)) return outcome;
    const event: RetryAttemptData = {
      attempt,
      maxAttempts: options.maxAttempts,
      code: outcome.error.code,
      message: outcome.error.message.slice(0, 500),
      durationMs: Math.round(performance.now() - started),
      decision: 'retry',
    };
    let delayMs = 0;
    if (ctx.cancellation.aborted) event.decision = 'aborted';
    else if (attempt >= options.maxAttempts) event.decision = 'exhausted';
    else {
      delayMs = backoffDelay(attempt, options.backoff, options.random);
      const deadline = ctx.cancellation.deadline;
      // Never wait into the deadline: the next attempt would start with no time to run.
      if (deadline !== undefined && performance.now() + delayMs >= deadline) event.decision = 'deadline';
      else event.delayMs = delayMs;
    }
    try {
      await host.events.emit('retry/attempt', event, ctx.call);
    } catch (error) {
      // An attempt nobody can see in the log is one the policy does not make.
      host.diagnostics.record(
        RetryPolicyCode.EVENT_FAILED,
        `tap:tools/execute:${name}`,
        `retry/attempt could not be logged, so "${ctx.call.name}" was not retried: ${messageOf(error)}`,
        ctx.call.id,
      );
      return outcome;
    }
    if (event.decision !== 'retry') return outcome;
    if (!(await sleep(delayMs, ctx.signal))) return cancelled(name, ctx.signal, outcome);
  }
}

/** Waits `ms`; resolves false at once when `signal` aborts first. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The outcome of a call cancelled between attempts: the abort reason's code, the last failure in the data. */
function cancelled(by: string, signal: AbortSignal, last: ErrorOutcome): ErrorOutcome {
  const reason: unknown = signal.reason;
  const code = DshError.isInstance(reason) ? reason.code : RetryPolicyCode.ABORTED;
  const message = DshError.isInstance(reason)
    ? reason.message
    : `the call was cancelled while waiting to retry${reason === undefined ? '' : `: ${messageOf(reason)}`}`;
  return {
    status: 'error',
    stage: 'execute',
    by,
    error: { code, message, data: { lastError: { code: last.error.code, message: last.error.message } } },
  };
}
