/** The file name programs are compiled under: it appears in stacks and syntax errors. */
export const PROGRAM_FILE = 'program.js';

const PREFIX = '(async () => {';
const fence = /^\s*```[\w-]*[^\S\n]*\n([\s\S]*?)\n?[^\S\n]*```\s*$/;

/**
 * Removes a markdown fence around the whole program (```js … ```), which
 * models often add. Anything else is left exactly as sent.
 */
export function unfence(code: string): string {
  const match = fence.exec(code);
  return match === null ? code : (match[1] ?? '');
}

/**
 * The program as a function expression for the sandbox to compile and call.
 * The body starts on line 1, so line numbers in errors match the model's code.
 */
export function wrapProgram(body: string): string {
  return `${PREFIX}${body}\n})`;
}

/** A location in the model's code, 1-based; the wrapper's columns on line 1 are taken off. */
export function programLocation(line: number, column: number): { line: number; column: number } {
  return { line, column: line === 1 ? Math.max(1, column - PREFIX.length) : column };
}

const frame = /program\.js:(\d+)(?::(\d+))?/;

/** The first position in the model's code named by a QuickJS stack, if any. */
export function locateInStack(stack: string): { line: number; column: number } | undefined {
  const match = frame.exec(stack);
  return match === null ? undefined : programLocation(Number(match[1]), Number(match[2] ?? 1));
}

/**
 * Strips TypeScript syntax (annotations, interfaces, `as`, `satisfies`, `!`,
 * enums) from the wrapped program with sucrase, without type checking and
 * keeping line numbers. Loaded on first use: plain JavaScript never pays for it.
 * Imports are kept (and then fail to parse): a program has no modules to import.
 * Throws sucrase's error when the text is not valid TypeScript either.
 */
export async function stripTypes(wrapped: string): Promise<string> {
  const { transform } = await import('sucrase');
  return transform(wrapped, { transforms: ['typescript'], disableESTransforms: true, keepUnusedImports: true }).code;
}
