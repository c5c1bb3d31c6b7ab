import { z } from '@deepseek-ai/dsh-core';
import { AgentError, AgentErrorCode } from '../errors.js';

/** Validates an adapter's options; throws `INVALID_OPTIONS` naming the adapter and the field. */
export function checkAdapterOptions(adapter: string, schema: z.ZodType, options: unknown): void {
  const parsed = schema.safeParse(options);
  if (parsed.success) return;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? issue.path.join('.') : 'options';
  throw new AgentError(AgentErrorCode.INVALID_OPTIONS, `${adapter}: ${where}: ${issue?.message ?? 'invalid'}`);
}

/** A client object that has the method at `path` (`chat.completions.create`). */
export function clientWith(path: string): z.ZodType {
  return z.custom<object>((value) => {
    let node: unknown = value;
    for (const part of path.split('.')) {
      if (typeof node !== 'object' || node === null) return false;
      node = (node as Record<string, unknown>)[part];
    }
    return typeof node === 'function';
  }, `must be the provider SDK's client (needs ${path})`);
}

/** The fields every adapter shares. */
export const commonAdapterOptions = {
  model: z.string().min(1),
  stream: z.boolean().optional(),
  maxTokens: z.number().int().positive().optional(),
  temperature: z.number().optional(),
  extraBody: z.record(z.string(), z.unknown()).optional(),
  images: z.boolean().optional(),
  files: z.boolean().optional(),
};
