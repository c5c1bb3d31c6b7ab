import type { IncomingMessage } from 'node:http';
import { pipeline, type Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import { DshError } from '@deepseek-ai/dsh-core';
import { WebErrorCode, webError } from '../errors.js';
import { connectionError } from './pinned-request.js';

/** How a body is read: the byte cap (after decompression) and whether to refuse bytes that sniff as binary. */
export interface ReadBodyOptions {
  readonly maxBytes: number;
  readonly sniffBinary: boolean;
  readonly signal: AbortSignal;
  readonly url: URL;
}

const sniffLength = 1024;

/**
 * Reads a response body into one buffer, decompressing `gzip`, `deflate`
 * and `br` as it streams. The cap counts decompressed bytes, so a
 * decompression bomb stops at the cap: the streams are destroyed, the socket
 * closed, and no more than the cap plus one chunk is ever held.
 */
export async function readBody(res: IncomingMessage, options: ReadBodyOptions): Promise<Buffer> {
  const { maxBytes, signal, url } = options;
  if (signal.aborted) {
    res.destroy();
    throw signal.reason;
  }
  const onAbort = () => res.destroy(signal.reason as Error);
  signal.addEventListener('abort', onAbort, { once: true });
  let decoders: Transform[];
  try {
    decoders = await decodersFor(res);
  } catch (error) {
    signal.removeEventListener('abort', onAbort);
    res.destroy();
    if (signal.aborted) throw signal.reason;
    throw DshError.isInstance(error) ? error : connectionError(url, error);
  }
  const source: Readable =
    decoders.length === 0
      ? res
      : (pipeline([res, ...decoders], () => {
          // Errors surface through the last stream, which the loop below reads.
        }) as unknown as Readable);
  const chunks: Buffer[] = [];
  let total = 0;
  let sniffed = !options.sniffBinary;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > maxBytes) {
        throw webError(
          WebErrorCode.BODY_TOO_LARGE,
          `the body of ${url.href} is larger than ${maxBytes} bytes${decoders.length > 0 ? ' after decompression' : ''}`,
          { limit: maxBytes, compressed: decoders.length > 0 },
        );
      }
      chunks.push(chunk);
      if (!sniffed && total >= sniffLength) {
        sniffed = true;
        refuseBinary(Buffer.concat(chunks), url);
      }
    }
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (DshError.isInstance(error)) throw error;
    if (isZlibError(error))
      throw webError(WebErrorCode.DECODE_FAILED, `the ${res.headers['content-encoding']} body of ${url.href} is corrupt`, {
        encoding: String(res.headers['content-encoding']),
      });
    throw connectionError(url, error);
  } finally {
    signal.removeEventListener('abort', onAbort);
    if (!res.complete) res.destroy();
    for (const d of decoders) d.destroy();
  }
  const body = Buffer.concat(chunks, total);
  if (!sniffed) refuseBinary(body, url);
  return body;
}

function refuseBinary(bytes: Buffer, url: URL): void {
  if (bytes.subarray(0, sniffLength).includes(0))
    throw webError(WebErrorCode.BINARY_CONTENT, `${url.href} sent binary bytes (NUL in the first ${sniffLength}); only text is fetched`, {
      sniffed: true,
    });
}

function isZlibError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  // zlib's codes (`Z_DATA_ERROR`, …) and brotli's (`ERR__ERROR_FORMAT_…`, `ERR_BROTLI_…`).
  return typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR__ERROR_') || code.startsWith('ERR_BROTLI'));
}

/** The decompressors for a `Content-Encoding`, in the order to apply them. */
async function decodersFor(res: IncomingMessage): Promise<Transform[]> {
  const encoding = res.headers['content-encoding'];
  if (encoding === undefined) return [];
  const names = encoding
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== '' && e !== 'identity');
  if (names.length > 3) throw webError(WebErrorCode.DECODE_FAILED, `too many content encodings: ${encoding}`, { encoding });
  // Applied last to first: "gzip, br" was gzipped, then brotli-compressed.
  const decoders: Transform[] = [];
  for (const name of names.reverse()) {
    if (name === 'gzip' || name === 'x-gzip') decoders.push(createGunzip());
    else if (name === 'br') decoders.push(createBrotliDecompress());
    // Raw or wrapped is decided on the first bytes of the wire, so only when deflate is the outermost layer.
    else if (name === 'deflate') decoders.push(decoders.length === 0 ? await deflateDecoder(res) : createInflate());
    else throw webError(WebErrorCode.DECODE_FAILED, `unsupported content encoding "${name}"`, { encoding });
  }
  return decoders;
}

/**
 * `deflate` is meant to be zlib-wrapped, but some servers send raw deflate:
 * the first bytes decide. They are read and put back, so the decompressor
 * is an ordinary stream with backpressure (a bomb cannot outrun the cap).
 */
async function deflateDecoder(res: Readable): Promise<Transform> {
  const first = await firstChunk(res);
  const b0 = first?.[0] ?? 0;
  const b1 = first?.[1] ?? 0;
  const zlibHeader = (b0 & 0x0f) === 8 && (b0 * 256 + b1) % 31 === 0;
  return zlibHeader || first === undefined ? createInflate() : createInflateRaw();
}

function firstChunk(stream: Readable): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const done = () => {
      stream.off('readable', onReadable);
      stream.off('end', onEnd);
      stream.off('error', onError);
    };
    const onReadable = () => {
      const chunk = stream.read() as Buffer | null;
      if (chunk === null) return;
      done();
      stream.unshift(chunk);
      resolve(chunk);
    };
    const onEnd = () => {
      done();
      resolve(undefined);
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    stream.on('readable', onReadable);
    stream.once('end', onEnd);
    stream.once('error', onError);
  });
}
