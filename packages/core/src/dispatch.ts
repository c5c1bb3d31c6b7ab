import type { CallRun } from './call-run.js';
import { DshError, ErrorCode, messageOf } from './errors.js';
import { errorFromThrown } from './finalise.js';
import type { ExecuteContext } from './hooks.js';
import { isPromiseLike } from './internal/deadline.js';
import type { JsonValue } from './json.js';
import { type DispatchOutcome, errorOutcome, type OutcomeError } from './outcome.js';
import type { Runtime } from './runtime.js';
import type { AnyToolDefinition, ToolContext } from './tool.js';
import { ToolContextImpl } from './tool-context.js';

/**
 * Stages 7 and 8: the `tools/execute` chain around the body. Settles even
 * when a tap or the body never does, once its signal is aborted and the
 * host's grace period has passed; a late settlement is recorded, not used.
 */
export function dispatch(rt: Runtime, run: CallRun, tool: AnyToolDefinition): Promise<DispatchOutcome> {
  const taps = rt.hooks.execute.taps;
  const signal = run.controller.signal;
  const step = (index: number, current: AbortSignal): Promise<DispatchOutcome> => {
    const tap = taps[index];
    if (tap === undefined) return runBody(rt, run, tool, current);
    const ctx: ExecuteContext = { call: run.identity, tool, args: run.args, session: rt.session, signal: current };
    let returned: DispatchOutcome | Promise<DispatchOutcome>;
    try {
      returned = tap.fn(ctx, (patch) => step(index + 1, patch?.signal ?? current));
    } catch (error) {
      return Promise.resolve(tapFailed(tap.name, error));
    }
    if (!isPromiseLike(returned)) return Promise.resolve(checkTapOutcome(tap.name, returned));
    return Promise.resolve(returned).then(
      (outcome) => checkTapOutcome(tap.name, outcome),
      (error: unknown) => tapFailed(tap.name, error),
    );
  };
  const settled = settleOnAbort(rt, run, step(0, signal), signal);
  const backstop = rt.limits.dispatchTimeoutMs;
  if (backstop === undefined) return settled;
  const timer = setTimeout(() => {
    run.controller.abort(
      new DshError(ErrorCode.TOOL_TIMEOUT, `the call passed the host's dispatch deadline of ${backstop} ms`, {
        data: { deadlineMs: backstop },
      }),
    );
  }, backstop);
  timer.unref?.();
  return settled.finally(() => clearTimeout(timer));
}

function checkTapOutcome(name: string, outcome: unknown): DispatchOutcome {
  const status = (outcome as { status?: unknown } | null)?.status;
  if (status === 'ok' || status === 'error') return outcome as DispatchOutcome;
  return errorOutcome('execute', ErrorCode.TOOL_FAILED, `execute tap "${name}" returned something other than an ok or error outcome`, {
    by: name,
  });
}

function tapFailed(name: string, error: unknown): DispatchOutcome {
  const info = errorFromThrown(error);
  return errorOutcome('execute', info.code, `execute tap "${name}" failed: ${info.message}`, { by: name, data: info.data });
}

/** Stage 8: the body, with its output schema, settling on abort after the grace period. */
function runBody(rt: Runtime, run: CallRun, tool: AnyToolDefinition, signal: AbortSignal): Promise<DispatchOutcome> {
  if (signal.aborted) return Promise.resolve(abortedOutcome(signal));
  const ctx: ToolContext = new ToolContextImpl(rt, run, signal);
  let value: unknown;
  try {
    value = tool.execute(run.args, ctx);
  } catch (error) {
    return Promise.resolve(thrownOutcome(error, signal));
  }
  if (!isPromiseLike(value)) return Promise.resolve(outputOutcome(tool, value));
  const body = Promise.resolve(value).then(
    (output) => outputOutcome(tool, output),
    (error: unknown) => thrownOutcome(error, signal),
  );
  // The outer race covers the call's own signal; a tap's signal of its own needs one here.
  return signal === run.controller.signal ? body : settleOnAbort(rt, run, body, signal);
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

function thrownOutcome(error: unknown, signal: AbortSignal): DispatchOutcome {
  if (signal.aborted && !DshError.isInstance(error)) return abortedOutcome(signal);
  const info = errorFromThrown(error);
  return errorOutcome('execute', info.code, info.message, { data: info.data });
}

/** The outcome of a body stopped by its signal: the reason's code when it has one (a timeout's). */
export function abortedOutcome(signal: AbortSignal): DispatchOutcome {
  const reason: unknown = signal.reason;
  const info: OutcomeError = DshError.isInstance(reason)
    ? errorFromThrown(reason)
    : { code: ErrorCode.ABORTED, message: `the call was aborted${reason === undefined ? '' : `: ${messageOf(reason)}`}` };
  return errorOutcome('execute', info.code, info.message, { data: info.data });
}

/**
 * Races `work` against `signal`: once aborted, waits the grace period and
 * then settles with the abort outcome. A late settlement is recorded.
 */
function settleOnAbort(rt: Runtime, run: CallRun, work: Promise<DispatchOutcome>, signal: AbortSignal): Promise<DispatchOutcome> {
  return new Promise<DispatchOutcome>((resolve) => {
    let done = false;
    let grace: ReturnType<typeof setTimeout> | undefined;
    const onAbort = (): void => {
      grace = setTimeout(() => {
        if (done) return;
        done = true;
        resolve(abortedOutcome(signal));
        work.then((late) => {
          rt.diagnostics.record(
            'LATE_SETTLEMENT',
            `tool:${run.identity.name}`,
            `settled ${late.status} after the ${rt.limits.abortGraceMs} ms grace period; the result was discarded`,
            run.identity.id,
          );
        });
      }, rt.limits.abortGraceMs);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    work.then((outcome) => {
      if (done) return;
      done = true;
      if (grace !== undefined) clearTimeout(grace);
      signal.removeEventListener('abort', onAbort);
      resolve(outcome);
    });
  });
}
