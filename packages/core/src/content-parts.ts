import { z } from 'zod';

/**
 * The media types a content part may carry: the images every model API
 * with vision takes, and PDF documents (where the provider reads files).
 */
export const contentMediaTypes = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf'] as const;

/** One of {@link contentMediaTypes}. */
export type ContentMediaType = (typeof contentMediaTypes)[number];

/**
 * The largest decoded size of one image or file part: 5 MiB, the smallest
 * per-image limit among the model APIs (Anthropic's), so a part that passes
 * here is not refused by any of them for its size.
 */
export const maxContentPartBytes = 5 * 1024 * 1024;

/**
 * Base64 with padding and no line breaks, what every API's inline data field
 * takes. A loop, not a regular expression: a repeated group over megabytes
 * exhausts the regex engine's stack.
 */
function isBase64(v: string): boolean {
  if (v.length % 4 !== 0) return false;
  const padding = v.endsWith('==') ? 2 : v.endsWith('=') ? 1 : 0;
  const end = v.length - padding;
  for (let i = 0; i < end; i++) {
    const c = v.charCodeAt(i);
    // A-Z, a-z, 0-9, '+', '/'
    if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47)) return false;
  }
  return true;
}

const maxBase64Chars = Math.ceil(maxContentPartBytes / 3) * 4;

const data = z
  .string()
  .min(1, 'must not be empty')
  .max(maxBase64Chars, `must decode to at most ${maxContentPartBytes} bytes`)
  .refine(isBase64, 'must be base64 (A-Z, a-z, 0-9, +, /, padded with =)');

/** A piece of text beside images or files. */
export interface TextPart {
  readonly type: 'text';
  readonly text: string;
}

/** An image, inline: base64 data and its media type. */
export interface ImagePart {
  readonly type: 'image';
  readonly mediaType: Exclude<ContentMediaType, 'application/pdf'>;
  /** The bytes, base64-encoded. */
  readonly data: string;
}

/** A file (a PDF), inline, for providers that read documents. */
export interface FilePart {
  readonly type: 'file';
  readonly mediaType: 'application/pdf';
  readonly data: string;
  /** The file name the model is shown, when the provider takes one. */
  readonly name?: string;
}

/** One part of a message or tool result beyond plain text. JSON only, so it goes into session logs as it is. */
export type ContentPart = TextPart | ImagePart | FilePart;

/**
 * A tool output made of parts (what tool-fs `read` returns for an image):
 * the agent loop sends each part in the provider's wire format, or a text
 * placeholder where the provider cannot take it.
 */
export interface ToolContent {
  readonly type: 'content';
  readonly parts: readonly ContentPart[];
}

/** The schema of one {@link ContentPart}. */
export const contentPartSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text'), text: z.string() }),
  z.strictObject({ type: z.literal('image'), mediaType: z.enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp']), data }),
  z.strictObject({ type: z.literal('file'), mediaType: z.literal('application/pdf'), data, name: z.string().min(1).optional() }),
]);

/** The schema of a {@link ToolContent} output: at least one part. */
export const toolContentSchema = z.strictObject({
  type: z.literal('content'),
  parts: z.array(contentPartSchema).min(1, 'must hold at least one part'),
});

/** Whether a value (a tool's output, as the pipeline froze it) is a valid {@link ToolContent}. */
export function isToolContent(value: unknown): value is ToolContent {
  // The cheap test first: most outputs are not content at all.
  if (typeof value !== 'object' || value === null || (value as { type?: unknown }).type !== 'content') return false;
  return toolContentSchema.safeParse(value).success;
}

/** Whether a value is a valid {@link ContentPart}. */
export function isContentPart(value: unknown): value is ContentPart {
  return contentPartSchema.safeParse(value).success;
}

/** The decoded size in bytes of a part's base64 data (0 for text). */
export function contentPartBytes(part: ContentPart): number {
  if (part.type === 'text') return 0;
  const padding = part.data.endsWith('==') ? 2 : part.data.endsWith('=') ? 1 : 0;
  return (part.data.length / 4) * 3 - padding;
}
