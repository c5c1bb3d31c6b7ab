import type { JsonValue } from './json.js';

/**
 * Who a call is. Fixed when the call enters the pipeline: no stage can change
 * it. `token` correlates a call with everything it causes (the sub-calls of a
 * `run_code` program carry their outer call's token). Every stage of one call
 * gets the very same frozen object, so a plugin can key a `WeakMap` by it to
 * carry state from its taps to its body; the entry goes with the call.
 */
export interface CallIdentity {
  readonly id: string;
  readonly name: string;
  readonly token: string;
  /**
   * The subagent this call was made by, when a nested loop made it (from
   * `ParentCall.agent`): its id and type, as hooks see them (`agent_id`,
   * `agent_type`). Absent for the main agent's calls.
   */
  readonly agent?: { readonly id: string; readonly type: string };
}

/** The pipeline stage that decided an outcome. */
export type Stage = 'step' | 'validate' | 'pre-execute' | 'approval' | 'guard' | 'execute' | 'post-execute' | 'finalise' | 'sink';

/** Why a call failed: a stable `code`, a message for the model, optional JSON data. */
export interface OutcomeError {
  readonly code: string;
  readonly message: string;
  readonly data?: JsonValue;
}

interface Decided {
  /** The stage that decided this outcome. */
  readonly stage: Stage;
  /** The tap, guard or plugin name within the stage, when one decided. */
  readonly by?: string;
}

/** The tool ran and produced `output` (possibly replaced by a post-execute tap). */
export interface OkOutcome extends Decided {
  readonly status: 'ok';
  readonly output: JsonValue;
}
/** The tool failed, or its input or output was invalid. */
export interface ErrorOutcome extends Decided {
  readonly status: 'error';
  readonly error: OutcomeError;
}
/** A pre-execute tap, the approval or a guard refused the call: the body never ran. */
export interface DeniedOutcome extends Decided {
  readonly status: 'denied';
  readonly code: string;
  readonly reason: string;
}
/** A post-execute tap withheld the output: the model reads `reason` instead. */
export interface BlockedOutcome extends Decided {
  readonly status: 'blocked';
  readonly code: string;
  readonly reason: string;
}

/** The one answer the model sees for a call. Frozen, lossless JSON. */
export type Outcome = OkOutcome | ErrorOutcome | DeniedOutcome | BlockedOutcome;

/** What dispatch (the `tools/execute` waterfall and the body) can produce; a body denies by throwing `ToolDenied`. */
export type DispatchOutcome = OkOutcome | ErrorOutcome | DeniedOutcome;

/** Builds an error outcome. */
export function errorOutcome(
  stage: Stage,
  code: string,
  message: string,
  extra?: { by?: string | undefined; data?: JsonValue | undefined },
): ErrorOutcome {
  const error: OutcomeError = extra?.data === undefined ? { code, message } : { code, message, data: extra.data };
  return extra?.by === undefined ? { status: 'error', stage, error } : { status: 'error', stage, by: extra.by, error };
}

/** Builds a denied outcome. */
export function deniedOutcome(stage: Stage, code: string, reason: string, by?: string): DeniedOutcome {
  return by === undefined ? { status: 'denied', stage, code, reason } : { status: 'denied', stage, code, reason, by };
}
