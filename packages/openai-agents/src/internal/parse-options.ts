import type { z } from '@deepseek-ai/dsh-core';
import { AgentsBridgeError, AgentsErrorCode } from '../errors.js';

/** Validates with `schema`, throwing `INVALID_OPTIONS` that names the field. */
export function parseOptions<T>(schema: z.ZodType, value: unknown, where: string): T {
  const parsed = schema.safeParse(value ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.length ? issue.path.join('.') : 'options';
    throw new AgentsBridgeError(AgentsErrorCode.INVALID_OPTIONS, `${where}: ${field}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data as T;
}
