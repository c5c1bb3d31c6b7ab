import { DshError, z } from '@deepseek-ai/dsh-core';
import { defaultRetryableCodes, RetryPolicyCode } from './errors.js';

const delayMs = z.number().int().nonnegative().max(2_147_483_647);

/** The zod schema of the backoff between attempts. */
export const backoffSchema = z
  .strictObject({
    /** The delay before the second attempt, before jitter. */
    initialMs: delayMs.default(200),
    /** Each further delay is the previous one times this. */
    multiplier: z.number().min(1).max(10).default(2),
    /** No delay exceeds this, before jitter. */
    maxMs: delayMs.default(5_000),
    /** `full`: uniform in [0, delay]; `equal`: uniform in [delay/2, delay]; `none`: exactly the delay. */
    jitter: z.enum(['full', 'equal', 'none']).default('full'),
  })
  .refine((b) => b.initialMs <= b.maxMs, { message: 'initialMs must not exceed maxMs', path: ['initialMs'] });

/** The zod schema of `retryPolicy` options. */
export const retryPolicyOptionsSchema = z.strictObject({
  /** Attempts in all, the first included: 3 means at most two retries. */
  maxAttempts: z.number().int().min(1).max(20).default(3),
  /** Error codes worth another attempt; replaces the default list. */
  retryOn: z.array(z.string().min(1)).default([...defaultRetryableCodes]),
  /** Tools (names or `*` globs) the integrator declares idempotent besides those that declare `idempotent: true`. */
  idempotentTools: z.array(z.string().min(1)).default([]),
  /** Tools (names or globs) never retried, even when idempotent. */
  excludeTools: z.array(z.string().min(1)).default([]),
  backoff: backoffSchema.default({ initialMs: 200, multiplier: 2, maxMs: 5_000, jitter: 'full' }),
  /** A source of numbers in [0, 1) for jitter; `Math.random` by default. */
  random: z
    .custom<() => number>((v) => typeof v === 'function', 'must be a function returning a number in [0, 1)')
    .default(() => Math.random),
  /** Position of the policy's tap on `tools/execute`: lower is outer. Inside the timeout policy (-200) by default. */
  stage: z.number().finite().default(-100),
});

/** Options of `retryPolicy`, as the integrator writes them: every field is optional. */
export type RetryPolicyOptions = z.input<typeof retryPolicyOptionsSchema>;

/** Options with every default filled in. */
export type ResolvedRetryPolicyOptions = z.output<typeof retryPolicyOptionsSchema>;

/** Validates options, naming the field on failure (`INVALID_OPTIONS`). */
export function parseRetryPolicyOptions(options: unknown): ResolvedRetryPolicyOptions {
  const parsed = retryPolicyOptionsSchema.safeParse(options ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.length ? issue.path.map(String).join('.') : 'options';
    throw new DshError(RetryPolicyCode.INVALID_OPTIONS, `retryPolicy: ${field}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}
