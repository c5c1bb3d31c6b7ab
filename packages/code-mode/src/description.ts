import { type CallableTool, toolDeclarations } from './declarations.js';
import type { ResolvedCodeModeOptions } from './options.js';

/** The `run_code` description the model reads: how to write a program, its limits, and the callable tools as TypeScript. */
export function runCodeDescription(tools: readonly CallableTool[], o: ResolvedCodeModeOptions): string {
  const mib = Math.round(o.memoryLimitBytes / (1024 * 1024));
  return [
    'Run a JavaScript program in a sandbox and get back what it returns. Use it to chain tool calls, loop over results, and filter or join data, so that only the answer comes back instead of every intermediate result.',
    '',
    'The code is the body of an async function: use `await`, and `return` a JSON value. Call tools as `await tools.name({ ...input })`. Each call is checked, approved and logged exactly like a direct call, and calls run one at a time in the order made. A failed or denied call rejects with a ToolCallError (`.status`, `.code`, `.message`); catch it to carry on. Await every call: calls still running when the program returns are cancelled. `console.log` output is returned with the result.',
    '',
    `Write plain JavaScript (TypeScript annotations are stripped, never checked). There is no require, import, process, file system, network, setTimeout or fetch: only the tools below. Limits per run: ${o.cpuTimeoutMs} ms of computation, ${Math.round(o.timeoutMs / 1000)} s in all, ${mib} MiB of memory, ${o.maxCalls} tool calls; a return value longer than ${o.maxResultChars} characters of JSON is cut.`,
    '',
    '```ts',
    toolDeclarations(tools),
    '```',
  ].join('\n');
}
