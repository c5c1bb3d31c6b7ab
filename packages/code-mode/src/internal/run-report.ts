import type { JsonValue } from '@deepseek-ai/dsh-core';
import { CodeModeErrorCode } from '../errors.js';
import type { ResolvedCodeModeOptions } from '../options.js';
import { MAX_LISTED_CALLS, type ProgramError, type RunCodeErrorData, type RunCodeOutput, type Truncation } from '../output.js';
import { locateInStack } from '../program-source.js';
import { parseGuestJson } from './guest-json.js';
import type { LogBuffer } from './log-buffer.js';
import type { CallSummaries } from './sub-calls.js';

/** How a program run ended. `error` fields hold the guest's JSON description of what was thrown. */
export type ProgramEnd =
  | { readonly kind: 'done'; readonly text: string; readonly totalChars: number }
  | { readonly kind: 'not-json'; readonly error: string }
  | { readonly kind: 'threw'; readonly error: string }
  | { readonly kind: 'syntax'; readonly message: string; readonly line?: number; readonly column?: number }
  | { readonly kind: 'timeout'; readonly budget: 'cpu' | 'wall' }
  | { readonly kind: 'out-of-memory' }
  | { readonly kind: 'data-limit'; readonly chars: number }
  | { readonly kind: 'stalled' }
  | { readonly kind: 'aborted' }
  | { readonly kind: 'crashed'; readonly message: string; readonly printed?: string };

/** What the run_code body turns into its output or its error. */
export type RunReport =
  | { readonly ok: true; readonly output: RunCodeOutput }
  | { readonly ok: false; readonly aborted: boolean; readonly code: string; readonly message: string; readonly data: RunCodeErrorData };

type Limits = Pick<ResolvedCodeModeOptions, 'maxResultChars' | 'cpuTimeoutMs' | 'timeoutMs' | 'memoryLimitBytes' | 'maxCallDataChars'>;

/** The report of a run from how it ended, its console output and its calls. */
export function reportOf(end: ProgramEnd, logs: LogBuffer, calls: CallSummaries, limits: Limits): RunReport {
  const listed = calls.listed.slice(0, MAX_LISTED_CALLS);
  const omitted = calls.total - listed.length;
  const truncated: Truncation[] = [];
  if (logs.truncated) truncated.push('logs');
  if (omitted > 0) truncated.push('calls');
  const base = omitted > 0 ? { logs: logs.text(), calls: listed, callsOmitted: omitted } : { logs: logs.text(), calls: listed };
  const fail = (code: string, message: string, error?: ProgramError): RunReport => ({
    ok: false,
    aborted: end.kind === 'aborted',
    code,
    message,
    data: error === undefined ? base : { ...base, error },
  });

  switch (end.kind) {
    case 'done': {
      let result: JsonValue;
      if (end.totalChars > limits.maxResultChars) {
        result = `${end.text}…[result truncated: ${end.totalChars} characters of JSON, showing the first ${limits.maxResultChars}]`;
        truncated.unshift('result');
      } else {
        const parsed = parseGuestJson(end.text);
        if (parsed === undefined) return fail(CodeModeErrorCode.RESULT_NOT_JSON, 'the program returned a value that is not JSON');
        result = parsed as JsonValue;
      }
      return { ok: true, output: truncated.length > 0 ? { result, ...base, truncated } : { result, ...base } };
    }
    case 'not-json': {
      const error = programError(end.error);
      return fail(CodeModeErrorCode.RESULT_NOT_JSON, `the program returned a value that is not JSON: ${error.message}`, error);
    }
    case 'threw': {
      const error = programError(end.error);
      if (error.name === 'InternalError' && error.message === 'out of memory') return outOfMemory(fail, limits);
      const where = error.line === undefined ? '' : ` (line ${error.line}${error.column === undefined ? '' : `, column ${error.column}`})`;
      // QuickJS throws null when it cannot allocate even the error for a failed allocation.
      const hint =
        error.name === 'Thrown value' && error.message === 'null'
          ? ' (QuickJS throws null when an allocation fails: most likely out of memory)'
          : '';
      return fail(CodeModeErrorCode.PROGRAM_THREW, `the program threw ${error.name}: ${error.message}${where}${hint}`, error);
    }
    case 'syntax': {
      const where = end.line === undefined ? '' : ` at line ${end.line}${end.column === undefined ? '' : `, column ${end.column}`}`;
      const error: ProgramError = { name: 'SyntaxError', message: end.message, ...location(end) };
      return fail(
        CodeModeErrorCode.CODE_SYNTAX,
        `the program does not parse${where}: ${end.message}. Send the body of an async function in plain JavaScript.`,
        error,
      );
    }
    case 'timeout':
      return fail(
        CodeModeErrorCode.PROGRAM_TIMEOUT,
        end.budget === 'cpu'
          ? `the program computed for more than ${limits.cpuTimeoutMs} ms and was stopped`
          : `the program did not finish within ${limits.timeoutMs} ms and was stopped`,
      );
    case 'out-of-memory':
      return outOfMemory(fail, limits);
    case 'data-limit':
      return fail(
        CodeModeErrorCode.CALL_DATA_LIMIT,
        `the program's tool calls moved more than ${limits.maxCallDataChars} characters of arguments and answers (maxCallDataChars) and it was stopped`,
      );
    case 'stalled':
      return fail(
        CodeModeErrorCode.PROGRAM_STALLED,
        'the program is waiting on a promise that can never settle (no tool call is pending; there are no timers)',
      );
    case 'aborted':
      return fail('ABORTED', 'the run was cancelled');
    case 'crashed':
      return fail(CodeModeErrorCode.SANDBOX_FAILED, `the sandbox failed: ${end.message}`);
  }
}

function outOfMemory(fail: (code: string, message: string) => RunReport, limits: Limits): RunReport {
  const mib = Math.round(limits.memoryLimitBytes / (1024 * 1024));
  return fail(CodeModeErrorCode.PROGRAM_OUT_OF_MEMORY, `the program ran out of memory (the sandbox has ${mib} MiB) and was stopped`);
}

function location(at: { readonly line?: number; readonly column?: number }): { line?: number; column?: number } {
  return at.line === undefined ? {} : at.column === undefined ? { line: at.line } : { line: at.line, column: at.column };
}

/** The guest's description of a thrown value, with the first position in the model's code. */
function programError(json: string): ProgramError {
  const value = parseGuestJson(json) as { name?: unknown; message?: unknown; stack?: unknown; code?: unknown } | undefined;
  const name = typeof value?.name === 'string' ? value.name : 'Error';
  const message = typeof value?.message === 'string' ? value.message : 'an unknown error';
  const error: ProgramError = typeof value?.code === 'string' ? { name, message, code: value.code } : { name, message };
  const stack = typeof value?.stack === 'string' && value.stack !== '' ? value.stack : undefined;
  if (stack === undefined) return error;
  return { ...error, stack, ...locateInStack(stack) };
}
