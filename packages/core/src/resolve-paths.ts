import type { CallRun } from './call-run.js';
import { DshError, ErrorCode, messageOf } from './errors.js';
import { errorFromThrown } from './finalise.js';
import type { Args } from './hooks.js';
import { deepFreeze } from './json.js';
import { errorOutcome, type OutcomeError } from './outcome.js';
import type { Runtime } from './runtime.js';
import type { AnyToolDefinition } from './tool.js';

/*
 * Invariant 14: a tool that takes paths resolves them once, before any
 * policy stage sees the call, so taps, approval, guards and the body judge
 * and touch one absolute path. A tool without `resolvePaths` costs one
 * property read here.
 */

/**
 * Runs the tool's `resolvePaths` on validated arguments. A changed value
 * must still pass the schema. A `ToolError` (any `DshError`) thrown ends the
 * call with its own code, message and data, before any policy sees it (a
 * path the tool refuses to touch); any other throw, or a value that fails
 * the schema, with `PATH_RESOLUTION_FAILED`.
 */
export function resolveCallPaths(rt: Runtime, run: CallRun, tool: AnyToolDefinition): void {
  const resolved = resolvedArgs(rt, tool, run.args);
  if (isFailure(resolved)) {
    run.outcome = errorOutcome('validate', resolved.code, resolved.message, { data: resolved.data });
    return;
  }
  if (resolved === run.args) return;
  const checked = tool.input.safeParse(resolved);
  if (!checked.success) {
    run.outcome = errorOutcome(
      'validate',
      ErrorCode.PATH_RESOLUTION_FAILED,
      `tool "${tool.name}" resolved its paths into arguments its own schema refuses: ${checked.error.issues[0]?.message ?? 'invalid'}`,
    );
    return;
  }
  run.args = deepFreeze(checked.data as Args);
  run.pathsResolved = true;
}

/** Why resolving failed; a class, so it is told apart from arguments by `instanceof`. */
class ResolutionFailure {
  constructor(
    readonly code: string,
    readonly message: string,
    readonly data: OutcomeError['data'] | undefined = undefined,
  ) {}
}

/** True when `resolvedArgs` failed. */
export function isFailure(value: Args | ResolutionFailure): value is ResolutionFailure {
  return value instanceof ResolutionFailure;
}

/**
 * The tool's resolution of `args` (which a pre-execute tap may have just
 * rewritten, not yet validated again), or why it failed. The same object
 * back means nothing needed resolving.
 */
export function resolvedArgs(rt: Runtime, tool: AnyToolDefinition, args: Args): Args | ResolutionFailure {
  const resolve = tool.resolvePaths;
  if (resolve === undefined) return args;
  let value: unknown;
  try {
    value = resolve.call(tool, args, rt.anchors);
  } catch (error) {
    if (DshError.isInstance(error)) {
      const { code, message, data } = errorFromThrown(error);
      return new ResolutionFailure(code, message, data);
    }
    return new ResolutionFailure(
      ErrorCode.PATH_RESOLUTION_FAILED,
      `tool "${tool.name}" could not resolve the paths in its arguments: ${messageOf(error)}`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return new ResolutionFailure(
      ErrorCode.PATH_RESOLUTION_FAILED,
      `tool "${tool.name}" resolved its paths into something other than an arguments object`,
    );
  }
  return value as Args;
}
