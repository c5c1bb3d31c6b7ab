import { type ContentPart, contentPartBytes } from '@deepseek-ai/dsh-core';

/** What kinds of media a provider (or a model on it) takes; a part it cannot take is sent as {@link placeholderOf}. */
export interface MediaSupport {
  /** PNG, JPEG, GIF and WebP images. */
  readonly images: boolean;
  /** PDF documents. */
  readonly files: boolean;
}

/** The text a model reads instead of a part it cannot take (and what the neutral `content` text holds). */
export function placeholderOf(part: Exclude<ContentPart, { type: 'text' }>): string {
  const what = part.type === 'image' ? 'image' : `file${part.name === undefined ? '' : ` ${part.name}`}`;
  return `[${what}: ${part.mediaType}, ${contentPartBytes(part)} bytes, not shown]`;
}

/** The parts as one text: text parts as they are, each image or file as its placeholder. */
export function partsText(parts: readonly ContentPart[]): string {
  return parts.map((p) => (p.type === 'text' ? p.text : placeholderOf(p))).join('\n');
}

/** Whether a provider with `support` takes the part inline. */
export function takes(support: MediaSupport, part: ContentPart): boolean {
  return part.type === 'text' || (part.type === 'image' ? support.images : support.files);
}

/** A `data:` URL of an image or file part (OpenAI's `image_url`, `file_data`). */
export function dataUrl(part: Exclude<ContentPart, { type: 'text' }>): string {
  return `data:${part.mediaType};base64,${part.data}`;
}

/** The support an adapter's `images` / `files` options give (both on unless turned off). */
export function mediaSupport(options: { readonly images?: boolean; readonly files?: boolean }): MediaSupport {
  return { images: options.images !== false, files: options.files !== false };
}
