import { lstat } from 'node:fs/promises';
import { defineTool, z } from '@deepseek-ai/dsh-core';
import { FsErrorCode, fsError } from '../errors.js';
import { globExternal } from '../external.js';
import { failureCard, outputOf, shown } from '../internal/cards.js';
import { globMatcher, kindOf } from '../internal/directory.js';
import { counted } from '../internal/plural.js';
import { pathResolver } from '../internal/resolve-paths.js';
import type { FsRuntime } from '../internal/runtime.js';
import { walkFiles } from '../search/walk.js';

const input = z.object({
  pattern: z.string().min(1).describe('A glob such as "**/*.ts" or "src/*.json"; without "/" it matches file names at any depth.'),
  path: z.string().min(1).optional().describe('The directory to search (default: the working directory).'),
  max_results: z.number().int().min(1).optional(),
  include_ignored: z.boolean().optional().describe('Also match in .git and what .gitignore ignores.'),
});

/** What `glob` returns. */
export interface GlobOutput {
  /** Absolute paths, most recently modified first. */
  readonly files: readonly string[];
  /** How many files matched in all. */
  readonly total: number;
  readonly truncated: boolean;
}

/** The `glob` tool. */
export function globTool(rt: FsRuntime) {
  return defineTool({
    name: 'glob',
    description:
      'Find files by glob pattern, most recently modified first. Skips .git and what .gitignore ignores unless include_ignored; symbolic links are not followed.',
    input,
    parallel: true,
    idempotent: true,
    external: globExternal,
    resolvePaths: pathResolver(rt, 'path', 'read', true),
    async execute(args, ctx): Promise<GlobOutput> {
      const match = globMatcher(args.pattern);
      const target = rt.workspace.resolveJudged(args.path ?? '.', 'read');
      if ((await kindOf(target.real)) !== 'directory') {
        throw fsError(FsErrorCode.NOT_A_DIRECTORY, `${target.real} is a file; glob searches a directory`, { path: target.real });
      }
      const walked = await walkFiles({
        workspace: rt.workspace,
        root: target.root,
        base: target.real,
        includeIgnored: args.include_ignored === true,
        signal: ctx.signal,
      });
      const matched = walked.filter((f) => match(f.rel));
      const timed: { path: string; mtimeMs: number }[] = [];
      for (const file of matched) {
        ctx.signal.throwIfAborted();
        try {
          timed.push({ path: file.abs, mtimeMs: (await lstat(file.abs)).mtimeMs });
        } catch {
          // Removed since the walk: not a match any more.
        }
      }
      timed.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      const cap = args.max_results ?? rt.options.maxResults;
      return { files: timed.slice(0, cap).map((t) => t.path), total: timed.length, truncated: timed.length > cap };
    },
    present: {
      presentCall: (args) => ({ title: `Glob ${shown(args.pattern)}`, summary: `in ${shown(args.path ?? '.')}` }),
      presentResult: (args, outcome) => {
        const failed = failureCard(`Glob ${args.pattern}`, outcome);
        if (failed !== undefined) return failed;
        const out = outputOf(outcome);
        const files = Array.isArray(out.files) ? (out.files as string[]) : [];
        return {
          title: `Glob ${args.pattern}`,
          summary: `${counted(Number(out.total), 'file')}${out.truncated === true ? ' (capped)' : ''}`,
          body: files.slice(0, 50).join('\n'),
        };
      },
    },
  });
}
