import type { Dirent } from 'node:fs';
import path from 'node:path';
import { defineTool, z } from '@deepseek-ai/dsh-core';
import picomatch from 'picomatch';
import { FsErrorCode, fsError } from '../errors.js';
import { listExternal } from '../external.js';
import { failureCard, outputOf, shown } from '../internal/cards.js';
import { kindOf } from '../internal/directory.js';
import { PinnedDirectory } from '../internal/pinned-dir.js';
import { counted } from '../internal/plural.js';
import { pathResolver } from '../internal/resolve-paths.js';
import type { FsRuntime } from '../internal/runtime.js';
import { IgnoreRules } from '../search/ignore-rules.js';

const input = z.object({
  path: z.string().min(1).optional().describe('The directory to list (default: the working directory).'),
  ignore: z.array(z.string().min(1)).optional().describe('Glob patterns of names to leave out.'),
  include_ignored: z.boolean().optional().describe('Also list .git and what .gitignore ignores.'),
});

/** One entry of a listing. */
export interface ListEntry {
  readonly name: string;
  readonly kind: 'file' | 'directory' | 'symlink' | 'other';
}

/** What `list` returns. */
export interface ListOutput {
  readonly path: string;
  /** Directories first, then files, each by name. */
  readonly entries: readonly ListEntry[];
  readonly truncated: boolean;
}

function kindOfEntry(entry: Dirent): ListEntry['kind'] {
  if (entry.isDirectory()) return 'directory';
  if (entry.isFile()) return 'file';
  if (entry.isSymbolicLink()) return 'symlink';
  return 'other';
}

/** The `list` tool. */
export function listTool(rt: FsRuntime) {
  return defineTool({
    name: 'list',
    description:
      'List the entries of a directory: directories first, then files. Skips .git and what .gitignore ignores unless include_ignored.',
    input,
    parallel: true,
    idempotent: true,
    external: listExternal,
    resolvePaths: pathResolver(rt, 'path', 'read', true),
    async execute(args, ctx): Promise<ListOutput> {
      const target = rt.workspace.resolveJudged(args.path ?? '.', 'read');
      if ((await kindOf(target.real)) !== 'directory') {
        throw fsError(FsErrorCode.NOT_A_DIRECTORY, `${target.real} is a file; use read to see it`, { path: target.real });
      }
      const dirents = PinnedDirectory.entries(rt.workspace, target.real);
      ctx.signal.throwIfAborted();
      const skip = (args.ignore ?? []).map((g) => picomatch(g, { dot: true }));
      const rules = args.include_ignored === true ? undefined : await IgnoreRules.at(target.root, target.real);
      const entries = dirents
        .filter((d) => !skip.some((m) => m(d.name)))
        .filter((d) => rules === undefined || !rules.ignores(path.join(target.real, d.name), d.isDirectory()))
        .map((d) => ({ name: d.name, kind: kindOfEntry(d) }))
        .sort(
          (a, b) => Number(b.kind === 'directory') - Number(a.kind === 'directory') || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
        );
      const cap = rt.options.maxResults;
      return { path: target.real, entries: entries.slice(0, cap), truncated: entries.length > cap };
    },
    present: {
      presentCall: (args) => ({ title: `List ${shown(args.path ?? '.')}` }),
      presentResult: (args, outcome) => {
        const failed = failureCard(`List ${args.path ?? '.'}`, outcome);
        if (failed !== undefined) return failed;
        const out = outputOf(outcome);
        const entries = Array.isArray(out.entries) ? (out.entries as ListEntry[]) : [];
        return {
          title: `List ${String(out.path)}`,
          summary: `${counted(entries.length, 'entry', 'entries')}${out.truncated === true ? ' (capped)' : ''}`,
          body: entries
            .slice(0, 100)
            .map((e) => (e.kind === 'directory' ? `${e.name}/` : e.name))
            .join('\n'),
        };
      },
    },
  });
}
