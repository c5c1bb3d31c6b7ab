import { z } from 'zod';

const jsonValue = z.unknown().describe('Any lossless JSON value');

const outcomeError = z.object({ code: z.string(), message: z.string(), data: jsonValue.optional() });
const decided = { stage: z.string(), by: z.string().optional() };

/** The zod schema of an outcome, as the `tool/result` event records it. */
export const outcomeSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('ok'), output: jsonValue, ...decided }),
  z.object({ status: z.literal('error'), error: outcomeError, ...decided }),
  z.object({ status: z.literal('denied'), code: z.string(), reason: z.string(), ...decided }),
  z.object({ status: z.literal('blocked'), code: z.string(), reason: z.string(), ...decided }),
]);

/** `tool/call`: logged before anything else happens to a call. */
export const toolCallEvent = z.object({
  name: z.string(),
  /** The arguments exactly as the model sent them: JSON text or an object. */
  args: jsonValue,
  /** For a sub-call (from `run_code`), the id of the outer call. */
  parent: z.string().optional(),
});

/** `tool/result`: exactly one per call, the outcome the model sees. */
export const toolResultEvent = z.object({
  name: z.string(),
  outcome: outcomeSchema,
  /** The arguments the body ran with, when a pre-execute tap rewrote them. */
  args: jsonValue.optional(),
  /** The validated arguments before the rewrite. */
  originalArgs: jsonValue.optional(),
  /** True when written by `loadSessionLog` for a call whose result was never logged. */
  synthetic: z.literal(true).optional(),
});

/** `context/message`: a step's additional context, once, after its results. */
export const contextMessageEvent = z.object({
  text: z.string(),
  parts: z.array(z.object({ call: z.string(), by: z.string(), text: z.string() })),
});

/** `todo/write`: a tool replaced the session's todo list. */
export const todoWriteEvent = z.object({
  todos: z.array(
    z.object({
      id: z.string().optional(),
      content: z.string(),
      status: z.enum(['pending', 'in_progress', 'completed']),
    }),
  ),
});

/** `fs/observed`: what a read saw, so read-before-edit state can be rebuilt from a log. */
export const fsObservedEvent = z.discriminatedUnion('state', [
  z.object({
    state: z.literal('present'),
    path: z.string(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    size: z.number().int().nonnegative(),
    mtimeMs: z.number(),
    /** False when only part of the file was read. */
    complete: z.boolean(),
  }),
  z.object({ state: z.literal('absent'), path: z.string() }),
]);

/** `hook/invoked`: an external hook script was started for a call. */
export const hookInvokedEvent = z.looseObject({
  hook: z.string(),
  event: z.string(),
  source: z.string().optional(),
});

/** `hook/result`: what an external hook script answered. */
export const hookResultEvent = z.looseObject({
  hook: z.string(),
  event: z.string(),
  exitCode: z.number().int().nullable().optional(),
  decision: z.string().optional(),
  durationMs: z.number().nonnegative(),
  error: z.string().optional(),
});

/** `tool/code-dispatch`: a `run_code` program called a tool. */
export const codeDispatchEvent = z.object({
  /** The sub-call's id, `<outer id>:code:<n>`. */
  subCall: z.string(),
  name: z.string(),
  index: z.number().int().nonnegative(),
});

/** Every event type core knows, with its data schema. */
export const coreEventSchemas = {
  'tool/call': toolCallEvent,
  'tool/result': toolResultEvent,
  'context/message': contextMessageEvent,
  'todo/write': todoWriteEvent,
  'fs/observed': fsObservedEvent,
  'hook/invoked': hookInvokedEvent,
  'hook/result': hookResultEvent,
  'tool/code-dispatch': codeDispatchEvent,
} as const;
