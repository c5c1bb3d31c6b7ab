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
  /** For a subagent's call, the subagent's id and type (`ParentCall.agent`). */
  agent: z.object({ id: z.string(), type: z.string() }).optional(),
});

/** `tool/result`: exactly one per call, the outcome the model sees. */
export const toolResultEvent = z.object({
  name: z.string(),
  outcome: outcomeSchema,
  /** The arguments the body ran with, when they differ from the validated ones: the tool resolved paths in them, or a pre-execute tap rewrote them. */
  args: jsonValue.optional(),
  /** When a pre-execute tap rewrote the arguments: what the waterfall started from (validated, paths resolved). */
  originalArgs: jsonValue.optional(),
  /** True when written by `loadSessionLog` for a call whose result was never logged. */
  synthetic: z.literal(true).optional(),
});

/** `context/message`: a step's additional context, once, after its results. */
export const contextMessageEvent = z.object({
  text: z.string(),
  parts: z.array(z.object({ call: z.string(), by: z.string(), text: z.string() })),
});

const todoStatus = z.enum(['pending', 'in_progress', 'completed']);
const todoItem = z.object({
  id: z.string().optional(),
  content: z.string(),
  status: todoStatus,
  /** The present-continuous form shown while the item is in progress ("Running the tests"). */
  activeForm: z.string().optional(),
});

/** `todo/write`: a tool replaced the session's todo list. */
export const todoWriteEvent = z.object({
  /** The whole new list, in order. */
  todos: z.array(todoItem),
  /** What changed against the previous list, when the writer computed it. */
  diff: z
    .object({
      added: z.array(todoItem),
      removed: z.array(todoItem),
      changed: z.array(z.object({ content: z.string(), from: todoStatus, to: todoStatus })),
    })
    .optional(),
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

/** `tool/code-dispatch`: a `run_code` program called a tool (and, with `status`, the call settled). */
export const codeDispatchEvent = z.object({
  /** The sub-call's id, `<outer id>:code:<n>`. */
  subCall: z.string(),
  name: z.string(),
  index: z.number().int().nonnegative(),
  /** Present on the event logged once the sub-call settled: its outcome's status. */
  status: z.enum(['ok', 'error', 'denied', 'blocked']).optional(),
  /** Present with `status`: how many parts of additional context the sub-call's taps added and core dropped. */
  droppedContext: z.number().int().nonnegative().optional(),
});

/** `approval/request`: a call left at `ask` is put to approval, with the arguments it would run with. */
export const approvalRequestEvent = z.object({
  /** The tool's name. */
  name: z.string(),
  /** The effective (validated, possibly rewritten) arguments the approval covers. */
  args: jsonValue,
  /** Why it was asked, as the pre-execute waterfall left it. */
  reason: z.string().optional(),
  /** The pre-execute tap that asked; absent when the host's default decision did. */
  by: z.string().optional(),
});

/** `approval/answer`: how an approval request was answered, by whom, after how long. */
export const approvalAnswerEvent = z.object({
  /** `allowed-once` (the provider), `allowed` (a remembered grant), or why the call was not approved. */
  answer: z.enum(['allowed-once', 'allowed', 'rejected', 'cancelled', 'unavailable', 'failed']),
  /**
   * Who answered: the approval `provider`, a `remembered` grant, the `timeout`, `none` (no provider
   * configured), or the `step` (cancelled while waiting).
   */
  source: z.enum(['provider', 'remembered', 'timeout', 'none', 'step']),
  /** The provider's message, or why the answer counts as a deny. */
  message: z.string().optional(),
  /** The remembered grant that answered, or that this answer created. */
  grant: z.string().optional(),
  /** Milliseconds from the request to the answer. */
  elapsedMs: z.number().int().nonnegative(),
});

/** `tool/late-settlement`: a body the call had stopped waiting for settled later; the result stands. */
export const lateSettlementEvent = z.object({
  /** The tool's name. */
  name: z.string(),
  /** How the body settled. */
  status: z.enum(['ok', 'error', 'denied']),
  /** The error or denial code, when it did not succeed. */
  code: z.string().optional(),
  /** Milliseconds from the body's dispatch to its settlement. */
  elapsedMs: z.number().int().nonnegative(),
  /** The grace period the call waited after its abort before settling without the body. */
  graceMs: z.number().int().nonnegative(),
});

/** `tool/interrupted`: on resume, a call found with a `tool/call` but no `tool/result`, and what became of it. */
export const toolInterruptedEvent = z.object({
  /** The tool's name. */
  name: z.string(),
  /** The `seq` of the call's unanswered `tool/call` event. */
  callSeq: z.number().int().positive(),
  /**
   * `rerun`: its tool is idempotent, so the call runs again through the whole pipeline (a new
   * `tool/call` and its `tool/result` follow). `interrupted`: its `tool/result` follows with
   * `TOOL_INTERRUPTED`, and the call is never run again.
   */
  resolution: z.enum(['rerun', 'interrupted']),
  /** Why a call was not run again: the tool is not idempotent, is not registered, or the call was a sub-call. */
  reason: z.enum(['idempotent', 'not-idempotent', 'unknown-tool', 'sub-call']),
});

/** `session/resumed`: a host took over a session log left by a process that stopped writing it. */
export const sessionResumedEvent = z.object({
  /** The `seq` of the last complete event before the resume. */
  afterSeq: z.number().int().nonnegative(),
  /** How many calls had no `tool/result` (each gets a `tool/interrupted` event next). */
  interrupted: z.number().int().nonnegative(),
  /** The 1-based line of a torn last line left by the crash, now terminated and skipped by readers. */
  tornLine: z.number().int().positive().optional(),
});

const statusSchema = z.enum(['ok', 'error', 'denied', 'blocked']);

/** `step/start`: `host.runStep` began a step; logged before the `tool/call` of any of its calls. */
export const stepStartEvent = z.object({
  /** The ids of the step's calls, in the model's order (a malformed call's is `#<index>`). */
  calls: z.array(z.string()),
  /** For a subagent's step (`StepOptions.parent`), the id of the call it runs under. */
  parent: z.string().optional(),
  /** True for the step a resume runs to call again the idempotent calls a crash cut: each has its first `tool/call` in an earlier step. */
  rerun: z.literal(true).optional(),
});

/** `step/end`: a step ended; logged after its results and its `context/message`, before `runStep` resolves. */
export const stepEndEvent = z.object({
  /** The `seq` of the step's `step/start`. */
  startSeq: z.number().int().positive(),
  /**
   * `completed`: every call has its result. `aborted`: the step's signal fired first; every call still
   * has its result. `failed`: the step itself failed (`error`); calls without a status may have none.
   * `interrupted`: written by `resumeSession` for a step the crash cut; the resume answered its calls.
   */
  end: z.enum(['completed', 'aborted', 'failed', 'interrupted']),
  /** Each call's outcome status, in `step/start`'s order; `null` for a call left without one. Absent for `interrupted`. */
  statuses: z.array(statusSchema.nullable()).optional(),
  /** For a subagent's step, the id of the call it ran under (as in its `step/start`). */
  parent: z.string().optional(),
  /** Why the step failed, for `failed`. */
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});

/** Every event type core knows, with its data schema (typed loosely: its declaration would repeat every schema). */
export const coreEventSchemas: Readonly<Record<string, z.ZodType>> = {
  'tool/call': toolCallEvent,
  'tool/result': toolResultEvent,
  'context/message': contextMessageEvent,
  'todo/write': todoWriteEvent,
  'fs/observed': fsObservedEvent,
  'hook/invoked': hookInvokedEvent,
  'hook/result': hookResultEvent,
  'tool/code-dispatch': codeDispatchEvent,
  'tool/late-settlement': lateSettlementEvent,
  'approval/request': approvalRequestEvent,
  'approval/answer': approvalAnswerEvent,
  'tool/interrupted': toolInterruptedEvent,
  'session/resumed': sessionResumedEvent,
  'step/start': stepStartEvent,
  'step/end': stepEndEvent,
};
