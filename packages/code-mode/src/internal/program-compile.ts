import { locateInStack, stripTypes, unfence, wrapProgram } from '../program-source.js';
import type { ProgramEnd } from './run-report.js';

/** Compiles source in the sandbox; '' on success, JSON of the error, or `undefined` if the sandbox failed. */
export type GuestCompile = (source: string) => string | undefined;

/**
 * Compiles the model's code in the sandbox: as JavaScript first, and on a
 * syntax error once more with TypeScript syntax stripped. Resolves with the
 * failure to end the run with, or `undefined` when the program is ready.
 */
export async function compileProgram(code: string, compile: GuestCompile): Promise<ProgramEnd | undefined> {
  const wrapped = wrapProgram(unfence(code));
  const first = compile(wrapped);
  if (first === undefined || first === '') return undefined;
  const jsError = parseError(first);
  if (jsError?.name !== 'SyntaxError') return { kind: 'threw', error: first };
  let stripped: string;
  try {
    stripped = await stripTypes(wrapped);
  } catch {
    // Not TypeScript either: report the JavaScript error, the language the model was asked for.
    return { kind: 'syntax', ...syntaxOf(jsError) };
  }
  const second = compile(stripped);
  if (second === undefined || second === '') return undefined;
  const tsError = parseError(second);
  return { kind: 'syntax', ...syntaxOf(tsError ?? jsError) };
}

interface GuestError {
  readonly name: string;
  readonly message: string;
  readonly stack: string;
}

function parseError(json: string): GuestError | undefined {
  try {
    const value = JSON.parse(json) as Partial<GuestError>;
    return { name: String(value.name ?? 'Error'), message: String(value.message ?? ''), stack: String(value.stack ?? '') };
  } catch {
    return undefined;
  }
}

function syntaxOf(error: GuestError): { message: string; line?: number; column?: number } {
  const at = locateInStack(error.stack);
  return at === undefined ? { message: error.message } : { message: error.message, line: at.line, column: at.column };
}
