import { DshError, z } from '@deepseek-ai/dsh-core';
import type { MeterProvider, TracerProvider } from '@opentelemetry/api';
import { OtelCode } from './errors.js';

/** The zod schema of `otel` options. */
export const otelOptionsSchema = z.strictObject({
  /** Where spans go; the global provider of `@opentelemetry/api` by default (a no-op until an SDK registers one). */
  tracerProvider: z
    .custom<TracerProvider>((v) => typeof (v as TracerProvider | null)?.getTracer === 'function', 'must have a getTracer method')
    .optional(),
  /** Where the duration histogram goes; the global provider by default, read when the plugin registers. */
  meterProvider: z
    .custom<MeterProvider>((v) => typeof (v as MeterProvider | null)?.getMeter === 'function', 'must have a getMeter method')
    .optional(),
  /** Record the call's arguments as `gen_ai.tool.call.arguments`. Off by default: arguments may hold secrets. */
  captureArguments: z.boolean().default(false),
  /** Record other events of a call (`retry/attempt`, `fs/observed`, …) as span events with their scalar fields. */
  spanEvents: z.boolean().default(true),
  /** Position of the plugin's tap on `tools/execute` (it makes the call's span active); lower is outer. */
  stage: z.number().finite().default(-300),
});

/** Options of `otel`, as the integrator writes them: every field is optional. */
export type OtelOptions = z.input<typeof otelOptionsSchema>;

/** Options with every default filled in. */
export type ResolvedOtelOptions = z.output<typeof otelOptionsSchema>;

/** Validates options, naming the field on failure (`INVALID_OPTIONS`). */
export function parseOtelOptions(options: unknown): ResolvedOtelOptions {
  const parsed = otelOptionsSchema.safeParse(options ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.length ? issue.path.map(String).join('.') : 'options';
    throw new DshError(OtelCode.INVALID_OPTIONS, `otel: ${field}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}
