import type { IncomingMessage, ServerResponse } from 'node:http';
import { exactJsonText } from '@deepseek-ai/dsh-core';
import { InboxError, InboxErrorCode } from './errors.js';

/** Sends JSON (bigints and long decimals kept exact). */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = exactJsonText(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** Sends an error as `{ error: { code, message, ... } }`. */
export function sendError(res: ServerResponse, error: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const e = InboxError.isInstance(error)
    ? error
    : new InboxError(InboxErrorCode.BAD_REQUEST, error instanceof Error ? error.message : String(error), { status: 500 });
  if (e.status === 413) res.setHeader('Connection', 'close');
  sendJson(res, e.status, { error: { code: e.code, message: e.message, ...(e.data ?? {}) } });
}

/** Reads a JSON body of at most `limit` bytes; a larger one is refused as soon as it passes the limit. */
export function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      reject(tooLarge(limit));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        req.removeAllListeners('data');
        req.resume();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', reject);
    req.on('end', () => {
      if (size > limit) return;
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        reject(new InboxError(InboxErrorCode.BAD_REQUEST, 'the body is not JSON', { status: 400 }));
      }
    });
  });
}

function tooLarge(limit: number): InboxError {
  return new InboxError(InboxErrorCode.BODY_TOO_LARGE, `the body exceeds ${limit} bytes`, { status: 413 });
}
