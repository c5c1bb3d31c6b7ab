// Small real tools for core's own tests.
import { defineTool, ToolError, z } from '../index.js';

/** Returns its text; records every run. */
export function echoTool(runs: string[] = []) {
  return defineTool({
    name: 'echo',
    description: 'Returns the text it was given.',
    input: z.object({ text: z.string() }),
    execute: (args, ctx) => {
      runs.push(`${ctx.call.id}:${args.text}`);
      return { text: args.text };
    },
  });
}

/** Waits `ms` (or until aborted, when it rejects); records start and end order. */
export function sleepTool(order: string[], options: { parallel?: boolean; name?: string; ignoreAbort?: boolean } = {}) {
  return defineTool({
    name: options.name ?? 'sleep',
    description: 'Waits a while.',
    parallel: options.parallel ?? false,
    input: z.object({ ms: z.number().int().nonnegative(), label: z.string() }),
    execute: (args, ctx) =>
      new Promise<{ label: string }>((resolve, reject) => {
        order.push(`start:${args.label}`);
        const timer = setTimeout(() => {
          order.push(`end:${args.label}`);
          resolve({ label: args.label });
        }, args.ms);
        if (options.ignoreAbort) return;
        ctx.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          order.push(`aborted:${args.label}`);
          reject(ctx.signal.reason);
        });
      }),
  });
}

/** Fails in the way it is told to. */
export function failTool() {
  return defineTool({
    name: 'fail',
    description: 'Fails on purpose.',
    input: z.object({ how: z.enum(['tool-error', 'error', 'string', 'object', 'reject-number']) }),
    execute: async (args) => {
      switch (args.how) {
        case 'tool-error':
          throw new ToolError('FILE_GONE', 'the file is gone', { data: { path: '/x' } });
        case 'error':
          throw new Error('boom');
        case 'string':
          throw 'a bare string';
        case 'object':
          throw { weird: true };
        default:
          return Promise.reject(42);
      }
    },
  });
}

/** Returns whatever output the test stored under the key it is given. */
export function outputTool(outputs: Record<string, () => unknown>) {
  return defineTool({
    name: 'output',
    description: 'Returns a prepared output.',
    input: z.object({ key: z.string() }),
    execute: (args) => {
      const make = outputs[args.key];
      if (make === undefined) throw new ToolError('NO_SUCH_KEY', args.key);
      return make();
    },
  });
}
