import { logAnswer, requestApproval } from './approve.js';
import type { CallRun } from './call-run.js';
import { ErrorCode, messageOf } from './errors.js';
import type { GuardVerdict } from './guards.js';
import type { Args, Decision, PreExecuteState, PreExecuteTap, PreExecuteUpdate } from './hooks.js';
import { approxSize } from './internal/approx-size.js';
import { isPromiseLike, type MaybePromise, withDeadline } from './internal/deadline.js';
import { runSeries, type SeriesSteps } from './internal/series.js';
import { deepFreeze, findProtoKey, parseJsonExact } from './json.js';
import { deniedOutcome, errorOutcome } from './outcome.js';
import { isFailure, resolvedArgs } from './resolve-paths.js';
import type { Runtime } from './runtime.js';
import type { Tap } from './taps.js';
import type { AnyToolDefinition } from './tool.js';

/**
 * Stage 1: the `tool/call` event. Resolves false when the sink could not
 * take it, in which case the call already has its `SINK_FAILED` outcome.
 */
export function announce(rt: Runtime, run: CallRun): boolean | Promise<boolean> {
  const agent = run.identity.agent;
  const data =
    run.parent === undefined
      ? { name: run.identity.name, args: run.sent }
      : agent === undefined
        ? { name: run.identity.name, args: run.sent, parent: run.parent.id }
        : { name: run.identity.name, args: run.sent, parent: run.parent.id, agent };
  // Arguments sent as JSON text (as models send them) are measured by their length, not walked.
  const sent = run.sent;
  let bytes = 20 + run.identity.name.length + (typeof sent === 'string' ? sent.length + 2 : approxSize(sent));
  if (run.parent !== undefined) bytes += 12 + run.parent.id.length + (agent === undefined ? 0 : 30 + agent.id.length + agent.type.length);
  const durable = rt.log.append('tool/call', data, run.identity, bytes);
  if (durable === undefined) return true;
  return durable.then((error) => {
    if (error === undefined) return true;
    run.outcome = errorOutcome(
      'sink',
      ErrorCode.SINK_FAILED,
      `the session log could not record this call, so it did not run: ${error.message}`,
    );
    return false;
  });
}

/** Parses the sent arguments (before the pending card, which shows them). */
export function parseSent(run: CallRun): void {
  let value = run.sent;
  if (typeof value === 'string') {
    try {
      value = parseJsonExact(value);
    } catch (error) {
      run.outcome = errorOutcome('validate', ErrorCode.INVALID_ARGS, `the arguments are not JSON: ${messageOf(error)}`);
      return;
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    run.outcome = errorOutcome('validate', ErrorCode.INVALID_ARGS, 'the arguments must be a JSON object');
    return;
  }
  const protoKey = findProtoKey(value);
  if (protoKey !== undefined) {
    run.outcome = errorOutcome('validate', ErrorCode.INVALID_ARGS, protoKeyMessage(protoKey));
    return;
  }
  run.parsed = deepFreeze(value as Args);
}

/** Stage 3: the tool must exist and the arguments must pass its schema. */
export function validate(rt: Runtime, run: CallRun): void {
  const tool = run.tool;
  // An internal tool answers only the tools that call it: to the model it does not exist.
  if (tool === undefined || (tool.internal === true && run.parent === undefined)) {
    const known = rt.tools
      .list()
      .filter((t) => t.internal !== true)
      .map((t) => t.name);
    run.outcome = errorOutcome(
      'validate',
      ErrorCode.UNKNOWN_TOOL,
      `there is no tool named "${run.identity.name}"${known.length > 0 ? `; the tools are: ${known.join(', ')}` : ''}`,
    );
    return;
  }
  run.tool = tool;
  if (run.outcome !== undefined) return;
  const checked = checkArgs(tool.input, run.parsed);
  if (typeof checked === 'string') {
    run.outcome = errorOutcome('validate', ErrorCode.INVALID_ARGS, checked);
    return;
  }
  run.args = checked;
  run.validated = true;
}

/** Validates arguments, returning the parsed value or a message that names each failing field. */
function checkArgs(
  schema: {
    safeParse(v: unknown): {
      success: boolean;
      data?: unknown;
      error?: { issues: readonly { path: readonly PropertyKey[]; message: string }[] };
    };
  },
  args: Args,
): Args | string {
  const result = schema.safeParse(args);
  if (result.success) return deepFreeze(result.data as Args);
  const issues = result.error?.issues ?? [];
  const parts = issues.slice(0, 5).map((issue) => {
    const path = issue.path.map(String).join('.');
    return path === '' ? issue.message : `${path}: ${issue.message}`;
  });
  if (issues.length > 5) parts.push(`and ${issues.length - 5} more`);
  return `invalid arguments: ${parts.join('; ') || 'rejected by the schema'}`;
}

function protoKeyMessage(path: string): string {
  return `refused: an own "__proto__" key at ${path} (a copy of these arguments would get a new prototype); rename the key`;
}

const defaultDenial = 'denied by the host default decision';

const decisions: ReadonlySet<unknown> = new Set<Decision>(['allow', 'deny', 'ask']);

/**
 * Stage 4: the `tools/pre-execute` waterfall. A deny ends it; a tap that
 * throws, passes its deadline or returns nonsense denies. Rewritten
 * arguments are validated again afterwards. Synchronous while taps are.
 */
export function preExecute(rt: Runtime, run: CallRun): MaybePromise<Decision | undefined> {
  const tool = run.tool;
  if (tool === undefined) return undefined;
  const taps = rt.hooks.preExecute.taps;
  // No tap: the host's default decides, with nothing to rewrite, remember or record.
  if (taps.length === 0) {
    if (rt.defaultDecision !== 'deny') return rt.defaultDecision;
    run.outcome = deniedOutcome('pre-execute', ErrorCode.PRE_EXECUTE_DENIED, defaultDenial);
    return undefined;
  }
  const series = new PreExecuteSeries(rt, run, tool);
  const ran = runSeries(taps, series);
  // Synchronous taps conclude at once, with no closure or promise made for it.
  if (isPromiseLike(ran)) return ran.then(() => concludeSeries(rt, run, tool, series));
  return concludeSeries(rt, run, tool, series);
}

function concludeSeries(rt: Runtime, run: CallRun, tool: AnyToolDefinition, series: PreExecuteSeries): Decision | undefined {
  return run.outcome === undefined ? concludePreExecute(rt, run, tool, series.state, series.rewrittenBy) : undefined;
}

/** The waterfall's state and what it does with each tap's answer: one object per call, not a closure per step. */
class PreExecuteSeries implements SeriesSteps<Tap<PreExecuteTap>, PreExecuteUpdate | undefined | void> {
  state: PreExecuteState;
  rewrittenBy: string | undefined;
  readonly #rt: Runtime;
  readonly #run: CallRun;
  readonly #info: PreExecuteInfo;

  constructor(rt: Runtime, run: CallRun, tool: AnyToolDefinition) {
    this.#rt = rt;
    this.#run = run;
    this.#info = new PreExecuteInfo(run, tool, rt.session);
    this.state = { call: run.identity, args: run.args, decision: rt.defaultDecision };
  }

  call(tap: Tap<PreExecuteTap>): ReturnType<PreExecuteTap> {
    return tap.fn(this.state, this.#info);
  }

  timeoutOf(tap: Tap<PreExecuteTap>): number {
    return tap.timeoutMs ?? this.#rt.limits.tapTimeoutMs;
  }

  fail(tap: Tap<PreExecuteTap>, error: unknown, timedOutMs?: number): false {
    return this.#failed(tap.name, timedOutMs === undefined ? `failed: ${messageOf(error)}` : `did not answer within ${timedOutMs} ms`);
  }

  answer(tap: Tap<PreExecuteTap>, update: PreExecuteUpdate | undefined | void): boolean {
    // A tap that hands back the state it was given (as tapable users write) changes nothing.
    if (update === undefined || update === null || update === this.state) return true;
    const problem = updateProblem(update);
    if (problem !== undefined) return this.#failed(tap.name, problem);
    let next: PreExecuteState = this.state;
    // The very args object that came in is no rewrite: nothing to validate again or record.
    if (update.args !== undefined && update.args !== next.args) {
      // Rewritten paths are resolved at once: the taps after this one judge what the body will touch.
      const args = resolvedArgs(this.#rt, this.#info.tool, update.args);
      if (isFailure(args)) return this.#failed(tap.name, `rewrote the arguments, but ${args.message}`);
      next = { ...next, args };
      this.rewrittenBy = tap.name;
    }
    if (update.decision !== undefined) {
      next = withDecision(next, update.decision, update.reason, tap.name);
    } else if (update.reason !== undefined) {
      next = { ...next, reason: update.reason };
    }
    if (update.remembered !== undefined && next.decision === 'allow') next = { ...next, remembered: update.remembered };
    this.state = next;
    return next.decision !== 'deny';
  }

  #failed(name: string, message: string): false {
    this.#run.outcome = deniedOutcome('pre-execute', ErrorCode.PRE_EXECUTE_FAILED, `pre-execute tap "${name}" ${message}`, name);
    return false;
  }
}

/** What a pre-execute tap learns besides the state; the signal is made only if a tap reads it. */
class PreExecuteInfo {
  readonly call: CallRun['identity'];
  readonly #run: CallRun;

  constructor(
    run: CallRun,
    readonly tool: AnyToolDefinition,
    readonly session: string,
  ) {
    this.call = run.identity;
    this.#run = run;
  }

  get signal(): AbortSignal {
    return this.#run.cancellation.signal;
  }
}

function concludePreExecute(
  rt: Runtime,
  run: CallRun,
  tool: AnyToolDefinition,
  state: PreExecuteState,
  rewrittenBy: string | undefined,
): Decision | undefined {
  if (state.decision === 'deny') {
    const reason = state.reason ?? (state.decidedBy === undefined ? defaultDenial : `denied by "${state.decidedBy}"`);
    run.outcome = deniedOutcome('pre-execute', ErrorCode.PRE_EXECUTE_DENIED, reason, state.decidedBy);
    return undefined;
  }
  if (rewrittenBy !== undefined) {
    const protoKey = findProtoKey(state.args);
    const checked = protoKey === undefined ? checkArgs(tool.input, state.args) : protoKeyMessage(protoKey);
    if (typeof checked === 'string') {
      run.outcome = errorOutcome('pre-execute', ErrorCode.INVALID_ARGS, `arguments rewritten by "${rewrittenBy}" are ${checked}`, {
        by: rewrittenBy,
      });
      return undefined;
    }
    run.originalArgs = run.args;
    run.args = checked;
  }
  run.askReason = state.reason;
  run.askBy = state.decidedBy;
  if (state.decision === 'allow' && state.remembered !== undefined) {
    const { grant, message } = state.remembered;
    const startedAt = requestApproval(rt, run);
    logAnswer(rt, run, startedAt, 'allowed', 'remembered', message, grant);
  }
  return state.decision;
}

function withDecision(state: PreExecuteState, decision: Decision, reason: string | undefined, by: string): PreExecuteState {
  // A new decision replaces the old one whole: its reason and any remembered grant behind it. Fields
  // named one by one: an object rest takes V8's slow path (about 2 µs on every tap that decides).
  return reason === undefined
    ? { call: state.call, args: state.args, decision, decidedBy: by }
    : { call: state.call, args: state.args, decision, reason, decidedBy: by };
}

function updateProblem(update: unknown): string | undefined {
  if (typeof update !== 'object') return 'returned something other than an update object';
  const { args, decision, reason } = update as Record<string, unknown>;
  if (decision !== undefined && !decisions.has(decision)) return `returned an unknown decision ${JSON.stringify(decision)}`;
  if (reason !== undefined && typeof reason !== 'string') return 'returned a reason that is not a string';
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args)))
    return 'returned arguments that are not an object';
  const remembered = (update as { remembered?: unknown }).remembered;
  if (remembered !== undefined) {
    const r = remembered as { grant?: unknown; message?: unknown } | null;
    if (typeof r !== 'object' || r === null || typeof r.grant !== 'string' || (r.message !== undefined && typeof r.message !== 'string'))
      return 'returned a remembered approval that is not { grant: string, message?: string }';
  }
  return undefined;
}

/**
 * Stage 6: every guard sees the final call. Any deny is final; a guard that
 * throws, passes its deadline or answers nonsense denies. Order does not
 * matter, so asynchronous guards are awaited together.
 */
export function checkGuards(rt: Runtime, run: CallRun): MaybePromise<boolean> {
  const guards = rt.guards.all;
  const tool = run.tool;
  if (guards.length === 0 || tool === undefined) return tool !== undefined;
  const input = Object.freeze({ call: run.identity, tool, args: run.args, session: rt.session, allowedBy: run.allowedBy });
  const failedMessage = (id: string, error: unknown) => `guard "${id}" failed, so the call was denied: ${messageOf(error)}`;
  let pending: Promise<boolean>[] | undefined;
  for (const guard of guards) {
    let verdict: GuardVerdict | Promise<GuardVerdict>;
    try {
      verdict = guard.check(input);
    } catch (error) {
      return guardDenied(run, guard.id, ErrorCode.GUARD_FAILED, failedMessage(guard.id, error));
    }
    if (isPromiseLike(verdict)) {
      const timeout = guard.timeoutMs ?? rt.limits.tapTimeoutMs;
      pending ??= [];
      pending.push(
        withDeadline(verdict, timeout).then(
          (settled) =>
            settled.timedOut
              ? guardDenied(
                  run,
                  guard.id,
                  ErrorCode.GUARD_FAILED,
                  `guard "${guard.id}" did not answer within ${timeout} ms, so the call was denied`,
                )
              : applyVerdict(run, guard.id, settled.value),
          (error: unknown) => guardDenied(run, guard.id, ErrorCode.GUARD_FAILED, failedMessage(guard.id, error)),
        ),
      );
    } else if (!applyVerdict(run, guard.id, verdict)) {
      return false;
    }
  }
  return pending === undefined ? true : Promise.all(pending).then((verdicts) => verdicts.every(Boolean));
}

function applyVerdict(run: CallRun, id: string, verdict: GuardVerdict): boolean {
  if (verdict === 'abstain') return true;
  if (typeof verdict === 'object' && verdict !== null && typeof verdict.deny === 'string') {
    return guardDenied(run, id, ErrorCode.GUARD_DENIED, verdict.deny);
  }
  return guardDenied(run, id, ErrorCode.GUARD_FAILED, `guard "${id}" gave an unknown verdict, so the call was denied`);
}

function guardDenied(run: CallRun, id: string, code: string, reason: string): false {
  // With guards answering in parallel, the first deny recorded stands.
  run.outcome ??= deniedOutcome('guard', code, reason, id);
  return false;
}
