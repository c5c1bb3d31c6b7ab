import { DshError, ErrorCode, z } from '@deepseek-ai/dsh-core';

const MiB = 1024 * 1024;
const toolName = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'a tool name is 1-64 letters, digits, "_" or "-"')
  .refine((name) => name !== 'run_code', '"run_code" can never be called from a program');

/** The zod schema of `codeMode` options; every field has a safe default. */
export const codeModeOptionsSchema = z
  .object({
    /**
     * The tools a program may call, by name. When absent, every tool registered
     * before `codeMode` (except `run_code`) is callable.
     */
    tools: z.array(toolName).optional(),
    /** Tools never callable from a program, even when `tools` is absent. */
    exclude: z.array(z.string()).default([]),
    /** Wall-clock deadline of one run, waits on tools and approvals included. */
    timeoutMs: z.number().int().positive().max(3_600_000).default(120_000),
    /** CPU time the program may use, summed over the run: its worker thread's CPU time, not elapsed time. */
    cpuTimeoutMs: z.number().int().positive().max(600_000).default(10_000),
    /** Hard cap of the sandbox's WebAssembly memory, rounded up to 64 KiB pages (32 MiB to 1 GiB). */
    memoryLimitBytes: z
      .number()
      .int()
      .min(32 * MiB)
      .max(1024 * MiB)
      .default(64 * MiB),
    /** Longest program accepted, in characters. */
    maxCodeChars: z.number().int().positive().max(10_000_000).default(100_000),
    /** Longest JSON text of one tool call's arguments. */
    maxArgsChars: z.number().int().positive().max(50_000_000).default(1_000_000),
    /** Longest JSON text of one tool output handed to the program. */
    maxToolOutputChars: z.number().int().positive().max(50_000_000).default(4_000_000),
    /** Console output kept per run; the rest is dropped with a marker. */
    maxLogChars: z.number().int().nonnegative().max(10_000_000).default(16_384),
    /** Longest JSON text of the return value; a longer one is cut with a marker. */
    maxResultChars: z.number().int().positive().max(50_000_000).default(65_536),
    /** Longest error message or stack passed across the sandbox boundary. */
    maxErrorChars: z.number().int().positive().max(1_000_000).default(4_096),
    /** Most tool calls one run may make. */
    maxCalls: z.number().int().positive().max(1_000_000).default(10_000),
    /** Total JSON characters of all calls' arguments and answers in one run; past it, the run ends (`CALL_DATA_LIMIT`). */
    maxCallDataChars: z.number().int().positive().max(2_000_000_000).default(100_000_000),
    /** `code-mode/call-cancelled` events logged per run; the rest are counted in one `code-mode/events-dropped`. */
    maxCancelledEvents: z.number().int().nonnegative().max(1_000_000).default(100),
    /** How deep `run_code` may nest through tools that start steps of their own (1: no nesting). */
    maxDepth: z.number().int().positive().max(100).default(3),
    /** How long to wait for a cancelled in-flight call to settle when a run stops. */
    cancelGraceMs: z.number().int().nonnegative().max(60_000).default(5_000),
  })
  .strict();

/** What `codeMode(options)` accepts. */
export type CodeModeOptions = z.input<typeof codeModeOptionsSchema>;

/** Options after defaults, as the plugin uses them. */
export type ResolvedCodeModeOptions = z.output<typeof codeModeOptionsSchema>;

/** Validates options; a bad one throws core's `INVALID_OPTIONS` naming the field. */
export function parseCodeModeOptions(options: unknown): ResolvedCodeModeOptions {
  const parsed = codeModeOptionsSchema.safeParse(options ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? issue.path.map(String).join('.') : 'options';
  throw new DshError(ErrorCode.INVALID_OPTIONS, `codeMode: ${where}: ${issue?.message ?? 'invalid'}`);
}
