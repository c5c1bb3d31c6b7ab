import type { z } from '@deepseek-ai/dsh-core';
import { LangChainBridgeError, LangChainErrorCode } from '../errors.js';

/** Validates options with `schema`, throwing `LANGCHAIN_INVALID_OPTIONS` that names the first bad field. */
export function parseOptions<S extends z.ZodType>(factory: string, schema: S, options: unknown): z.output<S> {
  const parsed = schema.safeParse(options ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.length ? issue.path.map(String).join('.') : 'options';
  throw new LangChainBridgeError(LangChainErrorCode.INVALID_OPTIONS, `${factory}: ${field}: ${issue?.message ?? 'invalid'}`);
}
