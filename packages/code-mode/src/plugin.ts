import {
  DshError,
  definePlugin,
  defineTool,
  ErrorCode,
  type Host,
  jsonSchemaOf,
  type Outcome,
  type Plugin,
  ToolError,
  z,
} from '@deepseek-ai/dsh-core';
import type { CallableTool } from './declarations.js';
import { runCodeDescription } from './description.js';
import { CodeModeErrorCode } from './errors.js';
import { CALL_CANCELLED_EVENT, callCancelledEvent, EVENTS_DROPPED_EVENT, eventsDroppedEvent } from './events.js';
import { ProgramRun } from './internal/program-run.js';
import { runDepth } from './internal/run-depth.js';
import { markStage } from './internal/run-trace.js';
import type { SubCallPort } from './internal/sub-calls.js';
import { type CodeModeOptions, parseCodeModeOptions, type ResolvedCodeModeOptions } from './options.js';
import type { RunCodeOutput } from './output.js';
import { version } from './version.js';

/** The plugin's name, also the `by` of what it decides. */
export const codeModeName = 'code-mode';

/**
 * The reserved `run_code` tool: the model sends a JavaScript program (an
 * async function body) that runs in a fresh QuickJS/WebAssembly sandbox on a
 * worker thread and calls tools as `await tools.name(input)`, each call going
 * through the whole pipeline again, one at a time. Register it after the plugins whose tools
 * programs may call: the tool description, with their TypeScript
 * declarations, is fixed at registration. Throws `INVALID_OPTIONS` (naming
 * the field) for bad options, and at registration when a tool named in
 * `tools` is not registered.
 *
 * @example
 * ```ts
 * await host.use(toolFs({ roots: [cwd] }));
 * await host.use(codeMode({ exclude: ['write'], timeoutMs: 60_000 }));
 * ```
 */
export function codeMode(options: CodeModeOptions = {}): Plugin {
  const resolved = parseCodeModeOptions(options);
  return definePlugin({
    name: codeModeName,
    version,
    register(host) {
      const tools = callableTools(host, resolved);
      host.events.define(CALL_CANCELLED_EVENT, callCancelledEvent, {
        meaning: 'A call a run_code program made never started: the program ended, the run stopped, or it came after the end.',
        example: { subCall: 'call_1:code:3', name: 'read', index: 3, reason: 'program-ended' },
      });
      host.events.define(EVENTS_DROPPED_EVENT, eventsDroppedEvent, {
        meaning: 'A run_code run had more call-cancelled events than maxCancelledEvents: how many more were not logged, by reason.',
        example: { type: 'code-mode/call-cancelled', dropped: 4900, reasons: { 'program-ended': 4900, 'run-stopped': 0, 'after-end': 0 } },
      });
      host.tools.registerReserved('run_code', runCodeTool(host, resolved, tools));
    },
  });
}

function runCodeTool(host: Host, o: ResolvedCodeModeOptions, tools: readonly CallableTool[]) {
  const callable: ReadonlySet<string> = new Set(tools.map((t) => t.name));
  // Tokens of the runs in progress: every sub-call carries its run's token, so a run_code among them is a recursion.
  const running = new Set<string>();
  return defineTool({
    name: 'run_code',
    description: runCodeDescription(tools, o),
    input: z.object({
      code: z
        .string()
        .min(1)
        .max(o.maxCodeChars)
        .describe('The body of an async JavaScript function: await tools.<name>({...}) calls and return a JSON value.'),
    }),
    present: {
      presentCall: (args) => {
        const code = typeof args.code === 'string' ? args.code : '';
        const lines = code.split('\n').length;
        return { title: 'Run code', summary: `${lines} line${lines === 1 ? '' : 's'} of JavaScript`, body: code, format: 'code' };
      },
      presentResult: (args, outcome) => ({ title: 'Run code', summary: resultSummary(outcome), body: args.code, format: 'code' }),
    },
    async execute({ code }, ctx): Promise<RunCodeOutput> {
      markStage('execute');
      const { token, id } = ctx.call;
      if (running.has(token)) {
        throw new ToolError(CodeModeErrorCode.RECURSIVE_RUN, 'run_code cannot be called from inside a run_code program');
      }
      // A token is per step: a tool that starts a step of its own gets a fresh one, so depth is counted apart.
      const depth = runDepth.current() + 1;
      if (depth > o.maxDepth) {
        throw new ToolError(
          CodeModeErrorCode.RUN_TOO_DEEP,
          `run_code may nest at most ${o.maxDepth} deep (maxDepth), through tools that run steps`,
        );
      }
      running.add(token);
      const release = runDepth.hold();
      try {
        const port: SubCallPort = {
          // host.tools.execute with this call as parent is ctx.tools.execute plus a signal of the run's own,
          // so a call the program left running can be cancelled when it returns.
          execute: (call, signal, droppedContext) =>
            runDepth.within(depth, () =>
              host.tools.execute(call, { id, token, signal, onDroppedContext: (parts) => droppedContext(parts.length) }),
            ),
          dispatched: (data) => ctx.emit('tool/code-dispatch', data),
          settled: (data) => ctx.emit('tool/code-dispatch', data),
          cancelled: (data) => ctx.emit(CALL_CANCELLED_EVENT, data),
          dropped: (data) => ctx.emit(EVENTS_DROPPED_EVENT, data),
        };
        const report = await new ProgramRun(o, callable, id, port).run(code, ctx.signal);
        if (report.ok) return report.output;
        // Cancelled from outside: core reports the signal's own reason (a timeout policy's code, say).
        if (report.aborted && ctx.signal.aborted) throw new Error(report.message);
        throw new ToolError(report.code, report.message, { data: report.data });
      } finally {
        running.delete(token);
        release();
      }
    },
  });
}

/** The tools a program may call, with their schemas, as of registration. */
function callableTools(host: Host, o: ResolvedCodeModeOptions): CallableTool[] {
  const excluded = new Set([...o.exclude, 'run_code']);
  const schemas = new Map(host.tools.schemas().map((s) => [s.name, s]));
  const names = o.tools ?? [...schemas.keys()];
  const tools: CallableTool[] = [];
  for (const name of names) {
    if (excluded.has(name)) continue;
    const schema = schemas.get(name);
    if (schema === undefined) {
      throw new DshError(
        ErrorCode.INVALID_OPTIONS,
        `codeMode: tools: "${name}" is not registered; register the plugins that provide it before codeMode`,
      );
    }
    const output = outputSchemaOf(host, name);
    tools.push(output === undefined ? { ...schema } : { ...schema, outputSchema: output });
  }
  return tools;
}

function outputSchemaOf(host: Host, name: string): Record<string, unknown> | undefined {
  const output = host.tools.get(name)?.output;
  if (output === undefined) return undefined;
  try {
    return jsonSchemaOf(output);
  } catch {
    // A schema JSON Schema cannot express: the program sees `unknown`.
    return undefined;
  }
}

function resultSummary(outcome: Outcome): string {
  switch (outcome.status) {
    case 'ok': {
      const output = outcome.output as { calls?: readonly unknown[]; callsOmitted?: number } | null;
      const calls = (output?.calls?.length ?? 0) + (output?.callsOmitted ?? 0);
      return `returned after ${calls} tool call${calls === 1 ? '' : 's'}`;
    }
    case 'error':
      return `${outcome.error.code}: ${outcome.error.message}`;
    default:
      return `${outcome.status}: ${outcome.reason}`;
  }
}
