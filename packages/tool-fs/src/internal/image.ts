import { createHash } from 'node:crypto';
import { read } from 'node:fs';
import { promisify } from 'node:util';
import { type ImagePart, maxContentPartBytes, type ToolContent } from '@deepseek-ai/dsh-core';
import { FsErrorCode, fsError } from '../errors.js';
import type { OpenedFile } from './open-file.js';

const readAt = promisify(read);

/** The image formats `read` returns as an image part, by their first bytes. */
const signatures: readonly { readonly mediaType: ImagePart['mediaType']; readonly bytes: readonly number[] }[] = [
  { mediaType: 'image/png', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { mediaType: 'image/jpeg', bytes: [0xff, 0xd8, 0xff] },
];

/** The media type of a PNG or JPEG file from its first bytes (the read's first chunk), or `undefined` for anything else. */
export function imageTypeOf(head: Uint8Array): ImagePart['mediaType'] | undefined {
  return signatures.find((s) => head.length >= s.bytes.length && s.bytes.every((b, i) => head[i] === b))?.mediaType;
}

/** What the line reader returns when the first chunk is an image's: the caller reads it as one. */
export interface ImageFound {
  readonly image: ImagePart['mediaType'];
}

/** What reading an image produced: the content for the model, and what `fs/observed` records. */
export interface ImageRead {
  readonly content: ToolContent;
  readonly sha256: string;
  readonly size: number;
}

/**
 * Reads a whole image into a content output: a text part naming it, then
 * the image part. Refuses a file over the content part cap
 * (`FS_FILE_TOO_LARGE`: no model API takes it inline).
 */
export async function readImage(
  path: string,
  file: OpenedFile,
  mediaType: ImagePart['mediaType'],
  signal: AbortSignal,
): Promise<ImageRead> {
  if (file.size > maxContentPartBytes) {
    throw fsError(
      FsErrorCode.FILE_TOO_LARGE,
      `${path} is a ${file.size}-byte image; images are read up to ${maxContentPartBytes} bytes (the smallest limit of the model APIs)`,
      { path, size: file.size, limit: maxContentPartBytes },
    );
  }
  const bytes = Buffer.alloc(file.size);
  let at = 0;
  while (at < bytes.length) {
    signal.throwIfAborted();
    const { bytesRead } = await readAt(file.fd, bytes, at, bytes.length - at, at);
    if (bytesRead === 0) break;
    at += bytesRead;
  }
  const data = bytes.subarray(0, at);
  const content: ToolContent = {
    type: 'content',
    parts: [
      { type: 'text', text: `${path}: ${mediaType === 'image/png' ? 'PNG' : 'JPEG'} image, ${at} bytes` },
      { type: 'image', mediaType, data: data.toString('base64') },
    ],
  };
  return { content, sha256: createHash('sha256').update(data).digest('hex'), size: at };
}
