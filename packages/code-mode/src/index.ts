/**
 * The reserved `run_code` tool for dsh: a program in a QuickJS/WebAssembly
 * sandbox, on a worker thread the host can stop at any instant, whose tool
 * calls re-enter the whole pipeline, one at a time.
 *
 * @packageDocumentation
 */
export { type CallableTool, toolDeclarations } from './declarations.js';
export { CodeModeErrorCode } from './errors.js';
export { CALL_CANCELLED_EVENT, callCancelledEvent, EVENTS_DROPPED_EVENT, eventsDroppedEvent } from './events.js';
export { type CodeModeOptions, codeModeOptionsSchema } from './options.js';
export type { CallStatus, CallSummary, ProgramError, RunCodeErrorData, RunCodeOutput, Truncation } from './output.js';
export { codeMode, codeModeName } from './plugin.js';
