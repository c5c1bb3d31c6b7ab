import { createHash } from 'node:crypto';
import { defineTool, isToolContent, type ToolContent, z } from '@deepseek-ai/dsh-core';
import { FsErrorCode, fromOsError, fsError } from '../errors.js';
import { readExternal } from '../external.js';
import { failureCard, outputOf, shown } from '../internal/cards.js';
import { reachedEnd } from '../internal/current-file.js';
import { type ImageFound, imageTypeOf, readImage } from '../internal/image.js';
import { observe } from '../internal/mutation.js';
import { type OpenedFile, readChunk, withPinned } from '../internal/open-file.js';
import { pathResolver } from '../internal/resolve-paths.js';
import type { FsRuntime } from '../internal/runtime.js';
import { looksBinary } from '../internal/text.js';

const input = z.object({
  file_path: z.string().min(1).describe('The file to read: absolute, or relative to the working directory.'),
  offset: z.number().int().min(1).optional().describe('The 1-based line to start at (default 1).'),
  limit: z.number().int().min(1).optional().describe('How many lines to return (default 2,000).'),
});

/** What `read` returns. */
export interface ReadOutput {
  readonly path: string;
  /** The lines, each as `<number>\t<text>`; a cut line ends with a marker. */
  readonly content: string;
  readonly startLine: number;
  /** The last line shown (`startLine - 1` when none was). */
  readonly endLine: number;
  /** Known when the whole file was scanned. */
  readonly totalLines?: number;
  /** True when every line of the file was shown in full. */
  readonly complete: boolean;
  readonly notice?: string;
}

const chunkSize = 1 << 16;

/** The `read` tool. */
export function readTool(rt: FsRuntime) {
  return defineTool({
    name: 'read',
    description:
      'Read a text file with line numbers. Use offset and limit for long files; lines longer than the limit are cut with a marker. A PNG or JPEG image is returned as an image you can see; other binary files and directories are refused. Read a file before you edit or overwrite it.',
    input,
    parallel: true,
    idempotent: true,
    external: readExternal,
    resolvePaths: pathResolver(rt, 'file_path', 'read'),
    async execute(args, ctx): Promise<ReadOutput | ToolContent> {
      const target = rt.workspace.resolveJudged(args.file_path, 'read');
      return withPinned(rt.workspace, target, async ({ file }) => {
        if (file === undefined) {
          await observe(ctx, { state: 'absent', path: target.real });
          throw fsError(FsErrorCode.NOT_FOUND, `${target.real} does not exist`, { path: target.real });
        }
        try {
          const lines = await readLines(rt, target.real, file, args.offset ?? 1, args.limit ?? rt.options.maxReadLines, ctx.signal, (o) =>
            observe(ctx, o),
          );
          if (!('image' in lines)) return lines;
          // An image, told by the first chunk: read whole, from the start, as an image part.
          const read = await readImage(target.real, file, lines.image, ctx.signal);
          const seen = { sha256: read.sha256, size: read.size, mtimeMs: file.mtimeMs };
          await observe(ctx, { state: 'present', path: target.real, ...seen, complete: true });
          return read.content;
        } catch (error) {
          throw fromOsError(error, target.real, 'reading');
        }
      });
    },
    present: {
      presentCall: (args) => ({
        title: `Read ${shown(args.file_path)}`,
        summary:
          args.offset === undefined && args.limit === undefined
            ? 'from the start'
            : `lines from ${shown(args.offset ?? 1)}, up to ${shown(args.limit ?? 'the default')}`,
      }),
      presentResult: (args, outcome) => {
        const failed = failureCard(`Read ${args.file_path}`, outcome);
        if (failed !== undefined) return failed;
        if (outcome.status === 'ok' && isToolContent(outcome.output)) {
          const text = outcome.output.parts.find((p) => p.type === 'text');
          return { title: `Read ${args.file_path}`, summary: text?.type === 'text' ? text.text : 'an image' };
        }
        const out = outputOf(outcome);
        const start = Number(out.startLine);
        const end = Number(out.endLine);
        const range = end > start ? `lines ${start}-${end}` : end === start ? `line ${start}` : 'no lines';
        const total = typeof out.totalLines === 'number' ? ` of ${out.totalLines}` : '';
        return { title: `Read ${String(out.path)}`, summary: `${range}${total}${out.complete === true ? '' : ' (partial)'}` };
      },
    },
  });
}

/** Streams the file once: bounded memory whatever its size or line length. */
async function readLines(
  rt: FsRuntime,
  path: string,
  opened: OpenedFile,
  startLine: number,
  limit: number,
  signal: AbortSignal,
  record: (o: Parameters<typeof observe>[1]) => Promise<void>,
): Promise<ReadOutput | ImageFound> {
  const { maxLineLength, maxReadChars, maxEditBytes } = rt.options;
  const endWanted = startLine + limit - 1;
  const hashWhole = opened.size <= maxEditBytes;
  const hash = createHash('sha256');
  const decoder = new TextDecoder('utf-8');
  const buffer = Buffer.allocUnsafe(chunkSize);
  const out: string[] = [];
  let outChars = 0;
  let line = 1;
  let current = '';
  let overflow = false;
  let anyCut = false;
  let charCapHit = false;
  let outputDone = false;
  let newlines = 0;
  let lastByte = -1;
  let bytes = 0;
  let eof = false;
  let first = true;

  const finishLine = (): void => {
    if (line >= startLine && line <= endWanted && !outputDone) {
      let text = !overflow && current.endsWith('\r') ? current.slice(0, -1) : current;
      const cut = overflow || text.length > maxLineLength;
      if (cut) text = `${text.slice(0, maxLineLength)}… [line cut at ${maxLineLength} characters]`;
      const entry = `${String(line).padStart(6)}\t${text}`;
      if (outChars + entry.length > maxReadChars && out.length > 0) {
        charCapHit = true;
        outputDone = true;
        return;
      }
      out.push(entry);
      outChars += entry.length + 1;
      if (cut) anyCut = true;
    }
    line += 1;
    current = '';
    overflow = false;
    if (line > endWanted) outputDone = true;
  };

  // Keeps at most maxLineLength + 1 characters of a line (the extra one may be a CR).
  const take = (text: string): void => {
    let from = 0;
    while (!outputDone) {
      const nl = text.indexOf('\n', from);
      const end = nl === -1 ? text.length : nl;
      if (line >= startLine) {
        const room = maxLineLength + 1 - current.length;
        if (end - from > room) overflow = true;
        if (room > 0) current += text.slice(from, from + Math.min(room, end - from));
      }
      if (nl === -1) return;
      finishLine();
      from = nl + 1;
    }
  };

  for (;;) {
    signal.throwIfAborted();
    const bytesRead = await readChunk(opened.fd, buffer, chunkSize);
    if (bytesRead === 0) {
      eof = true;
      break;
    }
    // A short read that covers the fstat size is the end: no extra round trip to see 0 bytes.
    eof = reachedEnd(bytesRead, chunkSize, bytes + bytesRead, opened.size);
    const chunk = buffer.subarray(0, bytesRead);
    if (first) {
      first = false;
      const image = imageTypeOf(chunk);
      if (image !== undefined) return { image };
      if (looksBinary(chunk)) {
        throw fsError(FsErrorCode.BINARY_FILE, `${path} looks like a binary file (it holds NUL bytes), so it is not shown as text`, {
          path,
          size: opened.size,
        });
      }
    }
    hash.update(chunk);
    bytes += bytesRead;
    newlines += countNewlines(chunk);
    lastByte = chunk[bytesRead - 1] ?? lastByte;
    if (!outputDone) take(decoder.decode(chunk, { stream: true }));
    if (eof || (outputDone && !hashWhole)) break;
  }
  if (eof && !outputDone) {
    take(decoder.decode());
    if (current.length > 0 || overflow) finishLine();
  }
  const totalLines = eof ? newlines + (bytes > 0 && lastByte !== 10 ? 1 : 0) : undefined;
  const endLine = startLine + out.length - 1;
  const complete = eof && startLine === 1 && !anyCut && !charCapHit && endLine === totalLines;
  await record({ state: 'present', path, sha256: hash.digest('hex'), size: opened.size, mtimeMs: opened.mtimeMs, complete });
  const result: ReadOutput = { path, content: out.join('\n'), startLine, endLine, complete };
  const notice = noticeOf({ totalLines, startLine, endLine, bytes, anyCut, charCapHit, complete, maxReadChars });
  return {
    ...result,
    ...(totalLines === undefined ? {} : { totalLines }),
    ...(notice === undefined ? {} : { notice }),
  };
}

function countNewlines(chunk: Buffer): number {
  let count = 0;
  let at = chunk.indexOf(10);
  while (at !== -1) {
    count += 1;
    at = chunk.indexOf(10, at + 1);
  }
  return count;
}

function noticeOf(s: {
  totalLines: number | undefined;
  startLine: number;
  endLine: number;
  bytes: number;
  anyCut: boolean;
  charCapHit: boolean;
  complete: boolean;
  maxReadChars: number;
}): string | undefined {
  if (s.bytes === 0) return 'The file is empty.';
  if (s.totalLines !== undefined && s.startLine > s.totalLines) {
    return `The file has ${s.totalLines} lines; offset ${s.startLine} is past the end.`;
  }
  if (s.complete) return undefined;
  const parts: string[] = [];
  if (s.endLine >= s.startLine) {
    parts.push(`Showing lines ${s.startLine}-${s.endLine}${s.totalLines === undefined ? '' : ` of ${s.totalLines}`}.`);
  }
  if (s.charCapHit) parts.push(`Output stopped at ${s.maxReadChars} characters.`);
  if (s.anyCut) parts.push('Some lines were cut.');
  if (s.totalLines === undefined || s.endLine < s.totalLines) parts.push(`Use offset ${s.endLine + 1} to read on.`);
  return parts.join(' ');
}
