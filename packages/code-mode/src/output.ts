import type { JsonValue } from '@deepseek-ai/dsh-core';

/**
 * How a program's tool call ended: an outcome status of the pipeline, or
 * `cancelled` (it never started: the run ended first, or it came after the
 * end) or `refused` (code mode refused it before the pipeline: not callable,
 * too many calls, the dispatch could not be logged).
 */
export type CallStatus = 'ok' | 'error' | 'denied' | 'blocked' | 'cancelled' | 'refused';

/** One tool call a program made, in the order it made them. */
export interface CallSummary {
  /** The sub-call's id, `<run_code call id>:code:<index>`. */
  readonly id: string;
  readonly name: string;
  readonly status: CallStatus;
  /** The error, denial or block code, when not `ok`. */
  readonly code?: string;
}

/** What one of the `truncated` entries says was cut. */
export type Truncation = 'result' | 'logs' | 'calls';

/** The output of an `ok` `run_code` outcome. */
export interface RunCodeOutput {
  /**
   * The program's return value as JSON (`null` when it returned nothing; a
   * BigInt becomes its decimal string). When its JSON text is longer than
   * `maxResultChars`, this is a string: the text's beginning and a marker.
   */
  readonly result: JsonValue;
  /** Console output, one line per call, with a marker when cut. */
  readonly logs: string;
  /** The program's tool calls, at most 100; `callsOmitted` counts the rest. */
  readonly calls: readonly CallSummary[];
  readonly callsOmitted?: number;
  /** What was cut to fit the limits; absent when nothing was. */
  readonly truncated?: readonly Truncation[];
}

/** Where and what the program threw, when it did. */
export interface ProgramError {
  readonly name: string;
  readonly message: string;
  /** The error's `code`, when it had one (a failed tool call's, say). */
  readonly code?: string;
  /** QuickJS's stack, in `program.js` line numbers. */
  readonly stack?: string;
  /** 1-based position in the model's code, when known. */
  readonly line?: number;
  readonly column?: number;
}

/** The `data` of a `run_code` error outcome: what the program printed and called before it failed. */
export interface RunCodeErrorData {
  readonly logs: string;
  readonly calls: readonly CallSummary[];
  readonly callsOmitted?: number;
  readonly error?: ProgramError;
}

/** Most call summaries listed in an output. */
export const MAX_LISTED_CALLS = 100;
