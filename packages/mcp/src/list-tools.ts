import { z } from '@deepseek-ai/dsh-core';
import { type Tool, ToolSchema } from '@modelcontextprotocol/sdk/types.js';

/** A tool of a server that was not registered, and why. */
export interface SkippedTool {
  readonly serverTool: string;
  readonly reason: string;
}

/** The shape of a `tools/list` page, checked leniently: each tool is checked on its own. */
export const lenientListResult = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

/** Sends one `tools/list` request (through the v1 or the v2 client) and checks it with {@link lenientListResult}. */
export type ListPage = (params: { cursor?: string }, timeoutMs: number) => Promise<z.infer<typeof lenientListResult>>;

/**
 * Reads every page of `tools/list` (at most `maxPages`; a cursor seen twice
 * ends it). Each tool is checked on its own, so one malformed entry is
 * skipped, with its reason, instead of failing the whole listing.
 */
export async function listAllTools(
  listPage: ListPage,
  maxPages: number,
  timeoutMs: number,
): Promise<{ readonly tools: Tool[]; readonly malformed: SkippedTool[] }> {
  const tools: Tool[] = [];
  const malformed: SkippedTool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const result = await listPage(cursor === undefined ? {} : { cursor }, timeoutMs);
    for (const entry of result.tools) {
      const parsed = ToolSchema.safeParse(entry);
      if (parsed.success) {
        tools.push(parsed.data);
      } else {
        const issue = parsed.error.issues[0];
        malformed.push({
          serverTool: nameOf(entry),
          reason: `not a valid tool: ${issue?.message ?? 'malformed'} at ${issue?.path.join('.') ?? ''}`,
        });
      }
    }
    cursor = result.nextCursor;
    if (cursor === undefined || seen.has(cursor)) break;
    seen.add(cursor);
  }
  return { tools, malformed };
}

function nameOf(entry: unknown): string {
  const name = (entry as { name?: unknown } | null)?.name;
  return typeof name === 'string' ? name : (JSON.stringify(entry)?.slice(0, 80) ?? String(entry));
}
