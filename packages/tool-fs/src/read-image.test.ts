import { createHash } from 'node:crypto';
import { truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isToolContent, maxContentPartBytes, type ToolContent } from '@deepseek-ai/dsh-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf, fsHost, observed, okOutput, type Scratch, scratch } from './fixtures/workspace.js';

let s: Scratch;
beforeEach(async () => {
  s = await scratch();
});
afterEach(() => s.cleanup());

// A real 1x1 PNG and the first bytes of a JPEG (the format is told by its signature).
const png = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201e2ad7bd40000000049454e44ae426082',
  'hex',
);
const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from('JFIF\0rest of it')]);

describe('read of an image', () => {
  it('returns a PNG as a text part and an image part, and records what it saw', async () => {
    await writeFile(path.join(s.ws, 'dot.png'), png);
    const t = await fsHost(s.ws);
    const out = okOutput<ToolContent>(await t.call('read', { file_path: 'dot.png' }));
    expect(isToolContent(out)).toBe(true);
    expect(out.parts).toEqual([
      { type: 'text', text: `${path.join(s.ws, 'dot.png')}: PNG image, ${png.length} bytes` },
      { type: 'image', mediaType: 'image/png', data: png.toString('base64') },
    ]);
    const [event] = observed(t.host.events.list());
    expect(event?.data).toMatchObject({
      state: 'present',
      size: png.length,
      complete: true,
      sha256: createHash('sha256').update(png).digest('hex'),
    });
  });

  it('returns a JPEG whatever its name, and ignores offset and limit', async () => {
    await writeFile(path.join(s.ws, 'photo.bin'), jpeg);
    const t = await fsHost(s.ws);
    const out = okOutput<ToolContent>(await t.call('read', { file_path: 'photo.bin', offset: 5, limit: 1 }));
    expect(out.parts[1]).toEqual({ type: 'image', mediaType: 'image/jpeg', data: jpeg.toString('base64') });
  });

  it('refuses an image over the content part cap with FS_FILE_TOO_LARGE, and still refuses other binary files', async () => {
    const big = path.join(s.ws, 'big.png');
    await writeFile(big, png);
    await truncate(big, maxContentPartBytes + 1);
    const t = await fsHost(s.ws);
    const error = errorOf(await t.call('read', { file_path: 'big.png' }));
    expect(error.code).toBe('FS_FILE_TOO_LARGE');
    expect(error.message).toContain(String(maxContentPartBytes));
    await writeFile(path.join(s.ws, 'blob'), Buffer.from([1, 0, 2, 0]));
    expect(errorOf(await t.call('read', { file_path: 'blob' })).code).toBe('FS_BINARY_FILE');
  });
});
