import { parseJsonExact } from '@deepseek-ai/dsh-core';

/** What a hook printed, read as JSON the way hooks are read. */
export type HookJson =
  | { readonly kind: 'none' }
  | { readonly kind: 'object'; readonly value: Record<string, unknown> }
  | { readonly kind: 'not-object'; readonly value: unknown }
  | { readonly kind: 'invalid'; readonly message: string };

/**
 * Finds the JSON object in a hook's stdout. Text whose first non-blank
 * character is `{` is parsed; when that fails, or when other output (a shell
 * profile's greeting) comes first, each later line that starts with `{` is
 * tried up to the end. Numbers keep every digit. `doubleDecoded` also accepts
 * a JSON string holding JSON (Gemini CLI does).
 */
export function findHookJson(stdout: string, doubleDecoded = false): HookJson {
  const text = stdout.trim();
  if (text === '') return { kind: 'none' };
  const candidates: number[] = [];
  if (text.startsWith('{') || (doubleDecoded && text.startsWith('"'))) candidates.push(0);
  for (let i = text.indexOf('\n{'); i !== -1; i = text.indexOf('\n{', i + 1)) candidates.push(i + 1);
  if (candidates.length === 0) return { kind: 'none' };
  let firstError: string | undefined;
  for (const start of candidates) {
    try {
      let value = parseJsonExact(text.slice(start));
      if (doubleDecoded && typeof value === 'string') value = parseJsonExact(value);
      if (typeof value === 'object' && value !== null && !Array.isArray(value))
        return { kind: 'object', value: value as Record<string, unknown> };
      return { kind: 'not-object', value };
    } catch (error) {
      firstError ??= (error as Error).message;
    }
  }
  return { kind: 'invalid', message: firstError ?? 'not JSON' };
}
