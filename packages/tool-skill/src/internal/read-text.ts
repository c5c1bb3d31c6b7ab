import { open } from 'node:fs/promises';

/** A bounded read of a regular file as UTF-8. */
export type TextRead =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly reason: 'too-large'; readonly size: number }
  | { readonly ok: false; readonly reason: 'not-a-file' | 'not-utf8' | 'os'; readonly message: string };

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads at most `maxBytes` of a regular file; a larger file is refused by
 * its size before reading, and a file that grows while being read is
 * refused too (one byte more than allowed is all that is read).
 */
export async function readBoundedText(path: string, maxBytes: number): Promise<TextRead> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, 'r');
    const stat = await handle.stat();
    if (!stat.isFile()) return { ok: false, reason: 'not-a-file', message: 'is not a regular file' };
    if (stat.size > maxBytes) return { ok: false, reason: 'too-large', size: stat.size };
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > maxBytes) return { ok: false, reason: 'too-large', size: length };
    try {
      return { ok: true, text: decoder.decode(buffer.subarray(0, length)) };
    } catch {
      return { ok: false, reason: 'not-utf8', message: 'is not UTF-8 text' };
    }
  } catch (error) {
    const code = (error as { code?: string }).code;
    return { ok: false, reason: 'os', message: `cannot be read (${code ?? (error as Error)?.message ?? 'unknown error'})` };
  } finally {
    await handle?.close();
  }
}
