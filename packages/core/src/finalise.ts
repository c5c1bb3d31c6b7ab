import { DshError, ErrorCode, messageOf } from './errors.js';
import { freezeJson, type JsonValue } from './json.js';
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

/**
 * Stage 11: makes the outcome lossless JSON and deeply frozen. An `ok`
 * output that is not JSON becomes `INVALID_TOOL_OUTPUT` naming where; error
 * data that is not JSON is dropped (the error itself stands). Returns the
 * frozen outcome and, when something was dropped, why.
 */
export function finalise(outcome: Outcome): { outcome: Outcome; dropped?: string } {
  if (outcome.status === 'ok') {
    const problem = freezeJson(outcome.output);
    if (problem !== undefined) {
      return {
        outcome: freezeOutcome(
          errorOutcome('finalise', ErrorCode.INVALID_TOOL_OUTPUT, `the output is not JSON at ${problem.path}: ${problem.message}`, {
            by: outcome.by,
          }),
        ),
      };
    }
    return { outcome: Object.isFrozen(outcome) ? outcome : Object.freeze(outcome) };
  }
  if (outcome.status === 'error' && outcome.error.data !== undefined) {
    const problem = freezeJson(outcome.error.data);
    if (problem !== undefined) {
      const { data: _dropped, ...error } = outcome.error;
      return {
        outcome: freezeOutcome({ ...outcome, error }),
        dropped: `error data is not JSON at ${problem.path}: ${problem.message}`,
      };
    }
  }
  return { outcome: freezeOutcome(outcome) };
}

function freezeOutcome(outcome: Outcome): Outcome {
  if (outcome.status === 'error') Object.freeze(outcome.error);
  return Object.freeze(outcome);
}
