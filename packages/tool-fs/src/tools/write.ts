import { defineTool, z } from '@deepseek-ai/dsh-core';
import { writeExternal } from '../external.js';
import { failureCard, outputOf, shown } from '../internal/cards.js';
import { readCurrent } from '../internal/current-file.js';
import { commitWrite, passGate } from '../internal/mutation.js';
import { withPinned } from '../internal/open-file.js';
import { withPathLock } from '../internal/path-lock.js';
import { counted } from '../internal/plural.js';
import { pathResolver } from '../internal/resolve-paths.js';
import type { FsRuntime } from '../internal/runtime.js';

const input = z.object({
  file_path: z.string().min(1).describe('The file to write: absolute, or relative to the working directory.'),
  content: z.string().describe('The whole new content of the file, written as given.'),
});

/** What `write` returns. */
export interface WriteOutput {
  readonly path: string;
  readonly created: boolean;
  readonly bytes: number;
  readonly sha256: string;
}

/** The `write` tool: create a file, or overwrite one this session has fully read. */
export function writeTool(rt: FsRuntime) {
  return defineTool({
    name: 'write',
    description:
      'Create a file, or replace the whole content of one. An existing file must have been read in full first and be unchanged since. Prefer edit for partial changes.',
    input,
    external: writeExternal,
    resolvePaths: pathResolver(rt, 'file_path', 'write'),
    async execute(args, ctx): Promise<WriteOutput> {
      const target = rt.workspace.resolveJudged(args.file_path, 'write');
      return withPathLock(target.real, () =>
        withPinned(rt.workspace, target, async (pinned) => {
          const current = await readCurrent(pinned, target.real, {
            keepBytes: false,
            maxBytes: rt.options.maxEditBytes,
            signal: ctx.signal,
          });
          await passGate(ctx, 'fs/write-intent', target.real, current.exists ? current.sha256 : null);
          const bytes = Buffer.from(args.content, 'utf8');
          const written = await commitWrite(ctx, rt, target, pinned, current, bytes, true);
          return { path: target.real, created: written.created, bytes: bytes.length, sha256: written.sha256 };
        }),
      );
    },
    present: {
      presentCall: (args) => {
        const content = typeof args.content === 'string' ? args.content : '';
        const lines = content.split('\n');
        const preview = lines.slice(0, 40).join('\n');
        return {
          title: `Write ${shown(args.file_path)}`,
          summary: `${counted(lines.length, 'line')}, ${counted(Buffer.byteLength(content), 'byte')}`,
          body: lines.length > 40 ? `${preview}\n… ${counted(lines.length - 40, 'more line')}` : preview,
          format: 'code',
        };
      },
      presentResult: (args, outcome) => {
        const failed = failureCard(`Write ${args.file_path}`, outcome);
        if (failed !== undefined) return failed;
        const out = outputOf(outcome);
        return {
          title: `Write ${String(out.path)}`,
          summary: `${out.created === true ? 'created' : 'overwrote'} (${counted(Number(out.bytes), 'byte')})`,
        };
      },
    },
  });
}
