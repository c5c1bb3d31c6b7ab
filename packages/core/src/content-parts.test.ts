import { describe, expect, it } from 'vitest';
import {
  contentPartBytes,
  contentPartSchema,
  isContentPart,
  isToolContent,
  maxContentPartBytes,
  toolContentSchema,
} from './content-parts.js';

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2]).toString('base64');

describe('content parts', () => {
  it('accepts text, image and file parts and a content output made of them', () => {
    const content = {
      type: 'content',
      parts: [
        { type: 'text', text: 'A picture:' },
        { type: 'image', mediaType: 'image/png', data: png },
        { type: 'file', mediaType: 'application/pdf', data: 'JVBERi0=', name: 'spec.pdf' },
      ],
    };
    expect(isToolContent(content)).toBe(true);
    expect(toolContentSchema.parse(content)).toEqual(content);
    expect(contentPartBytes({ type: 'image', mediaType: 'image/png', data: png })).toBe(10);
  });

  it('refuses data that is not base64, an unknown media type, an extra field and an empty part list', () => {
    expect(isContentPart({ type: 'image', mediaType: 'image/png', data: 'not base64!' })).toBe(false);
    expect(isContentPart({ type: 'image', mediaType: 'image/tiff', data: png })).toBe(false);
    expect(isContentPart({ type: 'image', mediaType: 'image/png', data: png, url: 'https://x' })).toBe(false);
    expect(isContentPart({ type: 'file', mediaType: 'image/png', data: png })).toBe(false);
    expect(isToolContent({ type: 'content', parts: [] })).toBe(false);
    expect(isToolContent({ type: 'other', parts: [] })).toBe(false);
    expect(isToolContent('content')).toBe(false);
    const issue = contentPartSchema.safeParse({ type: 'image', mediaType: 'image/png', data: '@@@@' });
    expect(issue.success ? '' : issue.error.issues[0]?.path.join('.')).toBe('data');
  });

  it('refuses a part over the size cap, naming the cap', () => {
    const data = 'A'.repeat((Math.ceil(maxContentPartBytes / 3) + 1) * 4);
    const parsed = contentPartSchema.safeParse({ type: 'image', mediaType: 'image/jpeg', data });
    expect(parsed.success).toBe(false);
    expect(parsed.success ? '' : parsed.error.issues[0]?.message).toContain(String(maxContentPartBytes));
    const atCap = 'A'.repeat(Math.floor(maxContentPartBytes / 3) * 4);
    expect(isContentPart({ type: 'image', mediaType: 'image/jpeg', data: atCap })).toBe(true);
  });
});
