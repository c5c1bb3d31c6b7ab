import { DshError, z } from '@deepseek-ai/dsh-core';
import { TimeoutPolicyCode } from './errors.js';

/** The longest delay `setTimeout` honours (about 24.8 days); longer values would fire at once. */
const maxTimerMs = 2_147_483_647;
const ms = z.number().int().positive().max(maxTimerMs);

/** The zod schema of `timeoutPolicy` options. */
export const timeoutPolicyOptionsSchema = z
  .strictObject({
    /** Deadline of a call when nothing more specific applies: 2 minutes, or `maxMs` when that is shorter. */
    defaultMs: ms.optional(),
    /** The longest deadline a tool's own `timeoutMs` or the model's argument can obtain. */
    maxMs: ms.default(600_000),
    /** How long an aborted call has to settle before the policy settles it without the body. */
    graceMs: z.number().int().nonnegative().max(maxTimerMs).default(2_000),
    /**
     * Deadlines by tool name or glob (`mcp__*`), set by the integrator: a number
     * of milliseconds, or `'none'` to exempt the tool. Exact names win over globs.
     */
    tools: z.record(z.string().min(1), z.union([ms, z.literal('none')])).default({}),
    /** The argument through which a model may ask for a deadline (clamped to `maxMs`); `false` to ignore it. */
    timeoutArg: z.union([z.string().min(1), z.literal(false)]).default('timeout'),
    /** The unit of that argument. */
    timeoutArgUnit: z.enum(['ms', 's']).default('ms'),
    /** Position of the policy's tap on `tools/execute`: lower is outer. */
    stage: z.number().finite().default(-200),
  })
  .refine((o) => o.defaultMs === undefined || o.defaultMs <= o.maxMs, { message: 'defaultMs must not exceed maxMs', path: ['defaultMs'] })
  .transform((o) => ({ ...o, defaultMs: o.defaultMs ?? Math.min(120_000, o.maxMs) }));

/** Options of `timeoutPolicy`, as the integrator writes them: every field is optional. */
export type TimeoutPolicyOptions = z.input<typeof timeoutPolicyOptionsSchema>;

/** Options with every default filled in. */
export type ResolvedTimeoutPolicyOptions = z.output<typeof timeoutPolicyOptionsSchema>;

/** Validates options, naming the field on failure (`INVALID_OPTIONS`). */
export function parseTimeoutPolicyOptions(options: unknown): ResolvedTimeoutPolicyOptions {
  const parsed = timeoutPolicyOptionsSchema.safeParse(options ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.length ? issue.path.map(String).join('.') : 'options';
    throw new DshError(TimeoutPolicyCode.INVALID_OPTIONS, `timeoutPolicy: ${field}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}
