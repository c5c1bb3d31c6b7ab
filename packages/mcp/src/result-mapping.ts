import type { JsonObject, JsonValue } from '@deepseek-ai/dsh-core';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { capContent, headOf, tailOf } from './internal/cap-content.js';

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

/** What was cut from a result that passed `maxResultChars`. */
export interface McpTruncation {
  /** Characters of text and base64 data the server sent (structured content counted as JSON). */
  readonly originalChars: number;
  /** Characters of them kept: the head and the tail of the text, and the parts that fit whole. */
  readonly keptChars: number;
  /** `originalChars - keptChars`: what the model does not see (text cut from the middle, parts replaced by `omitted` notes). */
  readonly omittedChars: number;
}

/** The output of an MCP tool call: its content, its structured content, and whether anything was cut. */
export interface McpToolOutput {
  readonly content: readonly McpContent[];
  readonly structuredContent?: JsonValue;
  /** Present when the result passed `maxResultChars`. */
  readonly truncated?: McpTruncation;
}

/**
 * Maps a `tools/call` result to dsh output, capped at `maxChars` characters
 * of text and base64 data in total, as bash caps its output: the head and
 * the tail are kept with a marker between them that counts the characters cut
 * (so a long text keeps its end, where the final status or error usually is),
 * binary parts that do not fit become `omitted` notes, and structured content
 * is kept whole if it fits in what the content left, else noted as omitted.
 * Unknown content types are kept as a note, never dropped silently.
 */
export function mapResult(result: CallToolResult, maxChars: number): McpToolOutput {
  const parts = (result.content ?? []).map((part) => mapPart(part as Record<string, unknown>));
  const sizes = parts.map(sizeOf);
  const capped = capContent(parts, sizes, maxChars);
  const content = capped.content;
  let original = sizes.reduce((a, b) => a + b, 0);
  let kept = capped.keptChars;
  const out: { content: McpContent[]; structuredContent?: JsonValue; truncated?: McpTruncation } = { content };
  if (result.structuredContent !== undefined) {
    const structured = result.structuredContent as JsonObject;
    const size = approximateChars(structured);
    original += size;
    if (kept + size <= maxChars) {
      out.structuredContent = structured;
      kept += size;
    } else {
      content.push({ type: 'omitted', original: 'structuredContent', chars: size });
    }
  }
  if (kept < original) out.truncated = { originalChars: original, keptChars: kept, omittedChars: original - kept };
  return out;
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

/** The text of a result, for an error message: its text parts joined; past `maxChars`, its head and tail around a `…`. */
export function resultText(output: McpToolOutput, maxChars = 4_000): string {
  const text = output.content
    .map((p) => (p.type === 'text' ? p.text : p.type === 'resource' && p.text !== undefined ? p.text : ''))
    .filter((t) => t !== '')
    .join('\n');
  if (text.length <= maxChars) return text;
  const head = Math.ceil(maxChars / 2);
  return `${headOf(text, head)}\n…\n${tailOf(text, maxChars - head)}`;
}
