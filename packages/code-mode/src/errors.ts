/**
 * Stable error codes of code mode. Codes of the `run_code` outcome are the
 * ones a model reads in `error.code`; codes of rejected tool calls are what a
 * program sees in `error.code` when it catches a failed `tools.x()` call.
 * Each is listed with its meaning in the package README.
 */
export const CodeModeErrorCode = {
  // Outcome codes of run_code itself.
  /** The program does not parse, as JavaScript or as TypeScript. */
  CODE_SYNTAX: 'CODE_SYNTAX',
  /** The program threw, or its returned promise rejected, and did not catch it. */
  PROGRAM_THREW: 'PROGRAM_THREW',
  /** The program used up its CPU budget (the worker thread's CPU time) or the run's wall-clock deadline. */
  PROGRAM_TIMEOUT: 'PROGRAM_TIMEOUT',
  /** The program hit the sandbox's memory cap. */
  PROGRAM_OUT_OF_MEMORY: 'PROGRAM_OUT_OF_MEMORY',
  /** The program awaits something that can never settle: no tool call is pending. */
  PROGRAM_STALLED: 'PROGRAM_STALLED',
  /** The program returned a value that is not JSON (a cycle, say). */
  RESULT_NOT_JSON: 'RESULT_NOT_JSON',
  /** The program's tool calls moved more than `maxCallDataChars` characters of arguments and answers. */
  CALL_DATA_LIMIT: 'CALL_DATA_LIMIT',
  /** `run_code` was called, directly or through a tool, from inside a running program. */
  RECURSIVE_RUN: 'RECURSIVE_RUN',
  /** `run_code` runs nested more than `maxDepth` deep (through tools that start steps of their own). */
  RUN_TOO_DEEP: 'RUN_TOO_DEEP',
  /** The sandbox itself failed (the WebAssembly instance could not start or crashed). */
  SANDBOX_FAILED: 'SANDBOX_FAILED',
  // Codes of a rejected tools.x() call, as the program sees them.
  /** The tool is not callable from a program. */
  TOOL_NOT_CALLABLE: 'TOOL_NOT_CALLABLE',
  /** The arguments are not JSON (a throwing getter, a BigInt in a cycle, …). */
  ARGS_NOT_JSON: 'ARGS_NOT_JSON',
  /** The arguments' JSON text is longer than `maxArgsChars`. */
  ARGS_TOO_LARGE: 'ARGS_TOO_LARGE',
  /** The tool's output is longer than `maxToolOutputChars`; the call ran, its output was withheld. */
  OUTPUT_TOO_LARGE: 'OUTPUT_TOO_LARGE',
  /** The run already made `maxCalls` calls. */
  TOO_MANY_CALLS: 'TOO_MANY_CALLS',
  /** The call was cancelled because the run stopped before it could start. */
  CALL_CANCELLED: 'CALL_CANCELLED',
  /** The session log could not record the dispatch, so the call did not run. */
  DISPATCH_NOT_LOGGED: 'DISPATCH_NOT_LOGGED',
} as const;

/** One of code mode's stable error codes. */
export type CodeModeErrorCode = (typeof CodeModeErrorCode)[keyof typeof CodeModeErrorCode];
