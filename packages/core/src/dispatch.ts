import { abortedOutcome } from './aborted-outcome.js';
import type { CallRun } from './call-run.js';
import { Cancellation } from './cancellation.js';
import { DshError, ErrorCode, ToolDenied } from './errors.js';
import { errorFromThrown } from './finalise.js';
import type { ExecuteContext } from './hooks.js';
import { raceAbort } from './internal/abort-race.js';
import { isPromiseLike, type MaybePromise } from './internal/deadline.js';
import type { JsonValue } from './json.js';
import { type DispatchOutcome, deniedOutcome, errorOutcome } from './outcome.js';
import type { Runtime } from './runtime.js';
import type { AnyToolDefinition } from './tool.js';
import { ToolContextImpl } from './tool-context.js';

/**
 * Stages 7 and 8: the `tools/execute` chain around the body. Settles even
 * when a tap or the body never does, once the call is aborted and the host's
 * grace period has passed; a late settlement is recorded, not used.
 */
export function dispatch(rt: Runtime, run: CallRun, tool: AnyToolDefinition): MaybePromise<DispatchOutcome> {
  const taps = rt.hooks.execute.taps;
  // Taps passing the same cancellation inward share one (immutable) context.
  let shared: ExecuteContextImpl | undefined;
  const step = (index: number, cancellation: Cancellation): MaybePromise<DispatchOutcome> => {
    const tap = taps[index];
    if (tap === undefined) return runBody(rt, run, tool, cancellation);
    let ctx = shared;
    if (ctx === undefined || ctx.cancellation !== cancellation) {
      ctx = new ExecuteContextImpl(rt.session, run, tool, cancellation);
      shared = ctx;
    }
    let returned: DispatchOutcome | Promise<DispatchOutcome>;
    let inner: Promise<DispatchOutcome> | undefined;
    try {
      returned = tap.fn(ctx, (patch) => {
        const next = patch?.cancellation ?? (patch?.signal === undefined ? cancellation : Cancellation.fromSignal(patch.signal));
        const rest = step(index + 1, next);
        // A tap's own cancellation gets one race around everything under the tap: its deadline and grace apply there.
        inner = next === cancellation || !isPromiseLike(rest) ? Promise.resolve(rest) : raceAbort(rt, run, rest, next);
        return inner;
      });
    } catch (error) {
      return tapFailed(tap.name, error);
    }
    // A tap that hands back what `next` gave it adds nothing to check.
    if (returned === inner) return returned;
    if (!isPromiseLike(returned)) return checkTapOutcome(tap.name, returned);
    return Promise.resolve(returned).then(
      (outcome) => checkTapOutcome(tap.name, outcome),
      (error: unknown) => tapFailed(tap.name, error),
    );
  };
  // Without taps the body is the whole chain: no step closure, no context to share.
  const result = taps.length === 0 ? runBody(rt, run, tool, run.cancellation) : step(0, run.cancellation);
  // A synchronous chain has already settled: nothing to race, no deadline to arm.
  if (!isPromiseLike(result)) return result;
  const backstop = rt.limits.dispatchTimeoutMs;
  if (!run.abortable && backstop === undefined) return result;
  const settled = raceAbort(rt, run, result, run.cancellation);
  if (backstop === undefined) return settled;
  const timer = setTimeout(() => {
    run.cancellation.abort(
      new DshError(ErrorCode.TOOL_TIMEOUT, `the call passed the host's dispatch deadline of ${backstop} ms`, {
        data: { deadlineMs: backstop },
      }),
    );
  }, backstop);
  timer.unref?.();
  return settled.finally(() => clearTimeout(timer));
}

/** The `ctx` of an execute tap; a class, as an object literal with a getter is slow to make per tap. */
class ExecuteContextImpl implements ExecuteContext {
  readonly call: CallRun['identity'];
  readonly args: CallRun['args'];

  constructor(
    readonly session: string,
    run: CallRun,
    readonly tool: AnyToolDefinition,
    readonly cancellation: Cancellation,
  ) {
    this.call = run.identity;
    this.args = run.args;
  }

  get signal(): AbortSignal {
    return this.cancellation.signal;
  }
}

function checkTapOutcome(name: string, outcome: unknown): DispatchOutcome {
  const o = outcome as { status?: unknown; code?: unknown; reason?: unknown } | null;
  const status = o?.status;
  if (status === 'ok' || status === 'error') return outcome as DispatchOutcome;
  if (status === 'denied' && typeof o?.code === 'string' && typeof o.reason === 'string') return outcome as DispatchOutcome;
  return errorOutcome(
    'execute',
    ErrorCode.TOOL_FAILED,
    `execute tap "${name}" returned something other than an ok, error or denied outcome`,
    {
      by: name,
    },
  );
}

function tapFailed(name: string, error: unknown): DispatchOutcome {
  const info = errorFromThrown(error);
  return errorOutcome('execute', info.code, `execute tap "${name}" failed: ${info.message}`, { by: name, data: info.data });
}

/** Stage 8: the body, with its output schema, settling on abort after the grace period. */
function runBody(rt: Runtime, run: CallRun, tool: AnyToolDefinition, cancellation: Cancellation): MaybePromise<DispatchOutcome> {
  if (cancellation.aborted) return abortedOutcome(cancellation.reason);
  let value: unknown;
  try {
    value = tool.execute(run.args, new ToolContextImpl(rt, run, cancellation));
  } catch (error) {
    return thrownOutcome(error, cancellation);
  }
  if (!isPromiseLike(value)) return outputOutcome(tool, value);
  // The races around the chain (the call's own, and one per tap cancellation) settle a body that hangs.
  return Promise.resolve(value).then(
    (output) => outputOutcome(tool, output),
    (error: unknown) => thrownOutcome(error, cancellation),
  );
}

function outputOutcome(tool: AnyToolDefinition, value: unknown): DispatchOutcome {
  let output: unknown = value === undefined ? null : value;
  if (tool.output !== undefined) {
    const parsed = tool.output.safeParse(output);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? `${issue.path.map(String).join('.')}: ` : '';
      return errorOutcome(
        'execute',
        ErrorCode.INVALID_TOOL_OUTPUT,
        `the output does not match the tool's output schema: ${where}${issue?.message ?? 'invalid'}`,
      );
    }
    output = parsed.data;
  }
  return { status: 'ok', stage: 'execute', output: output as JsonValue };
}

function thrownOutcome(error: unknown, source: Cancellation): DispatchOutcome {
  if (ToolDenied.isInstance(error)) return deniedOutcome('execute', error.code, error.message, error.by);
  if (source.aborted && !DshError.isInstance(error)) return abortedOutcome(source.reason);
  const info = errorFromThrown(error);
  return errorOutcome('execute', info.code, info.message, { data: info.data });
}
