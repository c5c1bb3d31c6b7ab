import { DshError, ErrorCode, messageOf } from './errors.js';
import { type JsonValue, measureAndFreezeJson } from './json.js';
import { errorOutcome, type Outcome, type OutcomeError, type Stage } from './outcome.js';

/**
 * Any thrown value as an outcome error: a `DshError` (or anything with a
 * string `code`) keeps its code and JSON data; everything else is `fallback`.
 */
export function errorFromThrown(thrown: unknown, fallback: string = ErrorCode.TOOL_FAILED): OutcomeError {
  const message = messageOf(thrown);
  const code =
    typeof thrown === 'object' && thrown !== null && typeof (thrown as { code?: unknown }).code === 'string'
      ? ((thrown as { code: string }).code as string)
      : fallback;
  const data = DshError.isInstance(thrown) ? thrown.data : undefined;
  return data === undefined ? { code, message } : { code, message, data: data as JsonValue };
}

/** A thrown value as an error outcome of `stage`. */
export function outcomeFromThrown(stage: Stage, thrown: unknown, by?: string, fallback?: string): Outcome {
  const error = errorFromThrown(thrown, fallback);
  return errorOutcome(stage, error.code, error.message, { by, data: error.data });
}

/** A finalised outcome, with its estimated size as JSON and, when error data was dropped, why. */
export interface Finalised {
  readonly outcome: Outcome;
  /** About how many bytes the outcome takes as JSON, from the walk that checked it (for the session log's bounds). */
  readonly bytes: number;
  readonly dropped?: string;
}

/**
 * Stage 11: makes the outcome lossless JSON and deeply frozen. An `ok`
 * output that is not JSON becomes `INVALID_TOOL_OUTPUT` naming where; error
 * data that is not JSON is dropped (the error itself stands). The walk that
 * checks the output also measures it, so the log need not walk it again.
 */
export function finalise(outcome: Outcome): Finalised {
  if (outcome.status === 'ok') {
    const measured = measureAndFreezeJson(outcome.output);
    if (typeof measured !== 'number') {
      const invalid = freezeOutcome(
        errorOutcome('finalise', ErrorCode.INVALID_TOOL_OUTPUT, `the output is not JSON at ${measured.path}: ${measured.message}`, {
          by: outcome.by,
        }),
      );
      return { outcome: invalid, bytes: envelopeBytes(invalid) };
    }
    return { outcome: Object.isFrozen(outcome) ? outcome : Object.freeze(outcome), bytes: envelopeBytes(outcome) + measured };
  }
  if (outcome.status === 'error' && outcome.error.data !== undefined) {
    const measured = measureAndFreezeJson(outcome.error.data);
    if (typeof measured !== 'number') {
      const { data: _dropped, ...error } = outcome.error;
      const kept = freezeOutcome({ ...outcome, error });
      return { outcome: kept, bytes: envelopeBytes(kept), dropped: `error data is not JSON at ${measured.path}: ${measured.message}` };
    }
    return { outcome: freezeOutcome(outcome), bytes: envelopeBytes(outcome) + measured };
  }
  return { outcome: freezeOutcome(outcome), bytes: envelopeBytes(outcome) };
}

function freezeOutcome(outcome: Outcome): Outcome {
  if (outcome.status === 'error') Object.freeze(outcome.error);
  return Object.freeze(outcome);
}

/** The outcome's size as JSON without its output or error data: its short fields. */
function envelopeBytes(outcome: Outcome): number {
  let bytes = 40 + outcome.status.length + outcome.stage.length + (outcome.by?.length ?? 0);
  if (outcome.status === 'error') bytes += outcome.error.code.length + outcome.error.message.length;
  else if (outcome.status !== 'ok') bytes += outcome.code.length + outcome.reason.length;
  return bytes;
}
