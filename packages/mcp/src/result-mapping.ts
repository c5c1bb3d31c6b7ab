import type { JsonObject, JsonValue } from '@deepseek-ai/dsh-core';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** One piece of an MCP tool's result, as dsh outputs it. */
export type McpContent =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image' | 'audio'; readonly mimeType: string; readonly data: string }
  | {
      readonly type: 'resource';
      readonly uri: string;
      readonly mimeType?: string;
      readonly text?: string;
      readonly blob?: string;
    }
  | {
      readonly type: 'resource_link';
      readonly uri: string;
      readonly name: string;
      readonly mimeType?: string;
      readonly description?: string;
    }
  /** A part left out because the result passed its size cap (binary data is never cut in half). */
  | { readonly type: 'omitted'; readonly original: string; readonly mimeType?: string; readonly chars: number };

/** The output of an MCP tool call: its content, its structured content, and whether anything was cut. */
export interface McpToolOutput {
  readonly content: readonly McpContent[];
  readonly structuredContent?: JsonValue;
  /** Present when the result passed `maxResultChars`: how many characters it had before. */
  readonly truncated?: { readonly originalChars: number; readonly keptChars: number };
}

const marker = (dropped: number): string => `\n…[${dropped} characters cut: the result passed its size limit]`;

/**
 * Maps a `tools/call` result to dsh output, capped at `maxChars` characters
 * of text and base64 data in total (like bash's output cap): text is cut with
 * a marker, binary parts and oversized structured content are replaced by an
 * `omitted` note. Unknown content types are kept as a note, never dropped silently.
 */
export function mapResult(result: CallToolResult, maxChars: number): McpToolOutput {
  let budget = maxChars;
  let original = 0;
  const content: McpContent[] = [];
  for (const part of result.content ?? []) {
    const mapped = mapPart(part as Record<string, unknown>);
    const size = sizeOf(mapped);
    original += size;
    if (size <= budget) {
      content.push(mapped);
      budget -= size;
    } else if (mapped.type === 'text') {
      const kept = Math.max(0, budget);
      content.push({ type: 'text', text: mapped.text.slice(0, kept) + marker(mapped.text.length - kept) });
      budget = 0;
    } else {
      content.push({ type: 'omitted', original: mapped.type, ...mimeOf(mapped), chars: size });
    }
  }
  const out: { content: McpContent[]; structuredContent?: JsonValue; truncated?: NonNullable<McpToolOutput['truncated']> } = { content };
  if (result.structuredContent !== undefined) {
    const structured = result.structuredContent as JsonObject;
    const size = approximateChars(structured);
    original += size;
    if (size <= budget) {
      out.structuredContent = structured;
      budget -= size;
    } else {
      content.push({ type: 'omitted', original: 'structuredContent', chars: size });
    }
  }
  if (budget < 0 || original > maxChars) out.truncated = { originalChars: original, keptChars: maxChars - Math.max(0, budget) };
  return out;
}

function mimeOf(part: McpContent): { mimeType?: string } {
  return 'mimeType' in part && typeof part.mimeType === 'string' ? { mimeType: part.mimeType } : {};
}

function sizeOf(part: McpContent): number {
  switch (part.type) {
    case 'text':
      return part.text.length;
    case 'image':
    case 'audio':
      return part.data.length;
    case 'resource':
      return (part.text?.length ?? 0) + (part.blob?.length ?? 0) + part.uri.length;
    default:
      return approximateChars(part);
  }
}

function approximateChars(value: unknown): number {
  try {
    return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))?.length ?? 0;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function mapPart(part: Record<string, unknown>): McpContent {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: str(part.text) ?? '' };
    case 'image':
    case 'audio':
      return { type: part.type, mimeType: str(part.mimeType) ?? 'application/octet-stream', data: str(part.data) ?? '' };
    case 'resource': {
      const r = (part.resource ?? {}) as Record<string, unknown>;
      const text = str(r.text);
      const blob = str(r.blob);
      const mimeType = str(r.mimeType);
      return {
        type: 'resource',
        uri: str(r.uri) ?? '',
        ...(mimeType === undefined ? {} : { mimeType }),
        ...(text === undefined ? {} : { text }),
        ...(blob === undefined ? {} : { blob }),
      };
    }
    case 'resource_link': {
      const mimeType = str(part.mimeType);
      const description = str(part.description);
      return {
        type: 'resource_link',
        uri: str(part.uri) ?? '',
        name: str(part.name) ?? '',
        ...(mimeType === undefined ? {} : { mimeType }),
        ...(description === undefined ? {} : { description }),
      };
    }
    default:
      return { type: 'omitted', original: String(part.type), chars: approximateChars(part) };
  }
}

/** The text of a result, for an error message: its text parts joined, capped. */
export function resultText(output: McpToolOutput, maxChars = 4_000): string {
  const text = output.content
    .map((p) => (p.type === 'text' ? p.text : p.type === 'resource' && p.text !== undefined ? p.text : ''))
    .filter((t) => t !== '')
    .join('\n');
  return text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
}
